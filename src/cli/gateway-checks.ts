// The gateway as doctor reports it and serve probes it at start (one implementation): reachable, key accepted, model offered.
import type { Config } from "../config/load.ts";
import { GatewayClient } from "../gateway/client.ts";
import { GatewayError, plainHttpOf, untrustedGatewayFix } from "../gateway/errors.ts";
import { isLoopbackHost } from "../web/loopback.ts";
import { noTlsThere, untrustedCertificateCode } from "../web/tls-failure.ts";
import type { Check } from "./doctor-checks.ts";

const TIMEOUT_MS = 5000;

const START_GATEWAY_FIX =
  "start it with `hermes gateway run` (or `systemctl --user start hermes-gateway`), or set HERMES_API_URL to where it listens";

/**
 * The gateway's /v1/health asks no key and exists at its root: answered 401 or 404 under a HERMES_API_URL with a path,
 * the path is the likelier fault (a route pasted, a prefix only a proxy knows), not the key or the gateway.
 */
function wrongPath(url: string, error: unknown): Pick<Check, "detail" | "fix"> | null {
  if (!(error instanceof GatewayError)) return null;
  const status = error.kind === "unauthorized" ? 401 : error.status;
  const parsed = URL.parse(url);
  if ((status !== 401 && status !== 404) || !parsed || parsed.pathname === "/") return null;
  const path = parsed.pathname;
  return {
    detail: `${path}/v1/health answered ${status}, though the gateway's health route asks no key`,
    fix:
      status === 404
        ? `set HERMES_API_URL=${parsed.origin} (a path belongs there only when a proxy serves the gateway under it)`
        : `unless a proxy serves the gateway under ${path}, set HERMES_API_URL=${parsed.origin}; if one does, it asks for credentials hermes-mcp does not send`,
  };
}

/**
 * An https gateway whose TLS handshake failed (EPROTO): a plain-http port is told apart by asking its health route over
 * http (no key is sent). Threat: the key in clear across a network, so http:// is advised only for this machine.
 */
async function failedHandshake(url: string): Promise<Pick<Check, "detail" | "fix">> {
  const plain = plainHttpOf(url);
  const speaksPlain = await new GatewayClient({ baseUrl: plain, apiKey: "", model: "", maxRetries: 0 })
    .health(TIMEOUT_MS)
    .then(() => true)
    .catch(() => false);
  if (!speaksPlain)
    return {
      detail: "the TLS handshake failed (EPROTO)",
      fix: "check that the gateway (or the proxy before it) serves https on that port, and whether it asks for a client certificate",
    };
  return {
    detail: "it speaks plain http on that port, not https",
    fix: isLoopbackHost(URL.parse(plain)?.hostname ?? "")
      ? `set HERMES_API_URL=${plain}`
      : `put it behind https (a proxy with a certificate), or set HERMES_API_URL=${plain} only on a network you trust: the key would travel in clear`,
  };
}

/** Why the gateway's health route did not answer, and what to do: one answer per cause doctor can tell apart. */
async function unreachedBecause(url: string, error: unknown): Promise<Pick<Check, "detail" | "fix">> {
  const kind = error instanceof GatewayError ? error.kind : null;
  const cause = (error as Error).cause;
  if (kind === "untrusted")
    return { detail: `its TLS certificate is not trusted here (${untrustedCertificateCode(cause)})`, fix: untrustedGatewayFix() };
  if (kind === "unreachable" && url.startsWith("https:") && noTlsThere(cause)) return failedHandshake(url);
  return (
    wrongPath(url, error) ?? {
      // The error's own sentence repeats the URL and a hint; the title already says the first and the fix the second.
      detail: kind === "unreachable" ? "nothing answers there" : (error as Error).message,
      fix: START_GATEWAY_FIX,
    }
  );
}

/**
 * Reachable, key set and accepted, model offered (its own module: `serve` loads it without the rest of doctor). `missingKey: false` leaves out the missing key (serve has already warned about it).
 */
export async function gatewayChecks(config: Config, options: { missingKey?: boolean } = {}): Promise<Check[]> {
  const checks: Check[] = [];
  const keyMissing: Check | null =
    config.gateway.apiKey || options.missingKey === false
      ? null
      : {
          ok: false,
          title: "HERMES_API_KEY set",
          fix: `set HERMES_API_KEY to API_SERVER_KEY from ${config.paths.hermesEnvFile} (or put API_SERVER_KEY there)`,
        };
  const client = new GatewayClient({
    baseUrl: config.gateway.url,
    apiKey: config.gateway.apiKey ?? "",
    model: config.gateway.model,
    maxRetries: 0,
  });
  const reachable = `Hermes gateway reachable at ${config.gateway.url}`;
  try {
    const { version } = await client.health(TIMEOUT_MS);
    checks.push({ ok: true, title: reachable, detail: version ? `version ${version}` : undefined });
  } catch (error) {
    checks.push({ ok: false, title: reachable, ...(await unreachedBecause(config.gateway.url, error)) });
    return keyMissing ? [...checks, keyMissing] : checks;
  }
  if (!config.gateway.apiKey) return keyMissing ? [...checks, keyMissing] : checks;
  const source = config.gateway.apiKeySource === "hermes-env" ? ` (API_SERVER_KEY from ${config.paths.hermesEnvFile})` : "";
  let models: string[];
  try {
    models = await client.models(TIMEOUT_MS);
    checks.push({ ok: true, title: `gateway accepts HERMES_API_KEY${source}` });
  } catch (error) {
    const unauthorized = error instanceof GatewayError && error.kind === "unauthorized";
    checks.push({
      ok: false,
      title: `gateway accepts HERMES_API_KEY${source}`,
      detail: unauthorized ? "the gateway answered 401 Unauthorized" : (error as Error).message,
      fix: unauthorized
        ? `copy API_SERVER_KEY from ${config.paths.hermesEnvFile} into HERMES_API_KEY, then restart hermes-mcp`
        : "see the gateway's log (journalctl --user -u hermes-gateway)",
    });
    return checks;
  }
  const present = models.includes(config.gateway.model);
  checks.push({
    ok: present,
    title: `model "${config.gateway.model}" offered by the gateway`,
    detail: present ? undefined : `the gateway offers: ${models.join(", ") || "nothing"}`,
    fix: present ? undefined : `set HERMES_MODEL to one of: ${models.join(", ")}`,
  });
  return checks;
}
