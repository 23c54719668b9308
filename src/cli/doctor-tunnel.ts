// `doctor` through the public URL: the tunnel answers over trusted HTTPS, reaches *this* daemon, keeps the issuer exact, streams unbuffered, and the clock agrees.
import { randomBytes } from "../crypto/primitives.ts";
import { existsSync } from "node:fs";
import type { Config } from "../config/load.ts";
import { protectedResourceMetadataUrl } from "../http/app.ts";
import { PROBE_PATH, PROBE_STREAM_GAP_MS, probeProof } from "../http/tunnel-probe.ts";
import type { DaemonHolder } from "../store/daemon-lock.ts";
import { inspectStore } from "../store/index.ts";
import type { Check } from "./doctor-checks.ts";
import { askRunningDaemon } from "./doctor-running.ts";
import {
  clockCheck,
  TUNNEL_TIMEOUT_MS as TIMEOUT_MS,
  tlsOrNetworkFailure,
  tunnelHostChecks,
  unexpectedAnswer,
  unusedGrantsCheck,
} from "./doctor-tunnel-verdicts.ts";
import { howToRestart } from "./stop-advice.ts";

const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";

/** Whether doctor looks through the issuer: set, and https (a loopback http issuer has no tunnel in front). */
export const hasPublicIssuer = (config: Config): boolean => !config.issuerIsDefault && config.issuerUrl.startsWith("https://");

async function fetchJson(url: string, headers: Record<string, string> = {}): Promise<{ response: Response; json: unknown }> {
  const response = await fetch(url, { headers, redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON: reported by the caller from the status and content type.
  }
  return { response, json };
}

interface ProbeResult {
  proof: string | null;
  /** The end event arrived at least half the gap after the proof: the stream was not held back. */
  streamed: boolean;
  response: Response;
}

async function probe(issuer: string, challenge: string): Promise<ProbeResult> {
  const response = await fetch(`${issuer}${PROBE_PATH}?challenge=${challenge}`, {
    redirect: "manual",
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (response.status !== 200 || !response.body) {
    await response.body?.cancel();
    return { proof: null, streamed: false, response };
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let proofAt: number | null = null;
  let endAt: number | null = null;
  while (endAt === null) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (proofAt === null && /event: proof\ndata: .*\n\n/.test(text)) proofAt = performance.now();
    if (/event: end\n/.test(text)) endAt = performance.now();
  }
  await reader.cancel().catch(() => undefined);
  const proof = (JSON.parse(text.match(/event: proof\ndata: (.*)\n/)?.[1] ?? "{}") as { proof?: unknown }).proof;
  return {
    proof: typeof proof === "string" ? proof : null,
    streamed: proofAt !== null && endAt !== null && endAt - proofAt >= PROBE_STREAM_GAP_MS / 2,
    response,
  };
}

/** The OAuth grants' use, from the database; null when it cannot be read. */
function grantUse(config: Config): { grants: number; used: number } | null {
  if (!existsSync(config.dbPath)) return null;
  try {
    const store = inspectStore(config.dbPath);
    try {
      return store.oauth.grants.useSummary();
    } finally {
      store.close();
    }
  } catch {
    return null;
  }
}

/** The issuer the running daemon serves as, asked on loopback; null when it cannot be asked. */
async function runningIssuer(holder: DaemonHolder): Promise<string | null> {
  const issuer = (await askRunningDaemon(holder, "/.well-known/oauth-authorization-server"))?.issuer;
  return typeof issuer === "string" ? issuer : null;
}

/**
 * The local daemon these checks are about, or a warning why they are skipped: it is not running (nothing to prove),
 * or it still serves an older OAUTH_ISSUER_URL (the env file changed since it started: a restart is the fix).
 */
async function localDaemonCheck(config: Config, running: DaemonHolder | "unknown" | null): Promise<Check | null> {
  if (running === null)
    return {
      ok: true,
      warn: true,
      title: `hermes-mcp is not running, so ${config.issuerUrl} was not checked from the outside`,
      fix: "start it (`hermes-mcp service install`, or `hermes-mcp serve`), then run `hermes-mcp doctor` again",
    };
  if (running === "unknown") return null;
  const serving = await runningIssuer(running);
  if (serving === null || serving === config.issuerUrl) return null;
  return {
    ok: true,
    warn: true,
    title: `the running hermes-mcp (pid ${running.pid}) still serves as ${serving}, not ${config.issuerUrl}`,
    detail: "it started before OAUTH_ISSUER_URL changed; the checks through the public URL run once it serves the new one",
    fix: `restart it: ${howToRestart(running)}`,
  };
}

/** Every check through OAUTH_ISSUER_URL; nothing when it is not a public https URL. */
export async function tunnelChecks(config: Config, running: DaemonHolder | "unknown" | null): Promise<Check[]> {
  if (!hasPublicIssuer(config)) return [];
  const issuer = config.issuerUrl;
  const grants = grantUse(config);
  // The running daemon's per-start key, from its lock record (trusted only while the lock is held: runningDaemon).
  const probeKey = running === null || running === "unknown" ? null : (running.probe_key ?? null);
  const checks: Check[] = [...tunnelHostChecks(new URL(issuer).hostname)];
  const waf = unusedGrantsCheck(grants);
  const done = (): Check[] => (waf ? [...checks, waf] : checks);
  const port = config.bind.port;
  const skipped = await localDaemonCheck(config, running);
  if (skipped) {
    checks.push(skipped);
    return done();
  }

  // 1. Protected-resource metadata (RFC 9728) through the tunnel: TLS trusted, something answers, and it is ours.
  const resourceTitle = `public URL ${issuer} reachable over trusted HTTPS, naming ${config.resourceUrl}`;
  let resource: Awaited<ReturnType<typeof fetchJson>>;
  try {
    resource = await fetchJson(protectedResourceMetadataUrl(config));
  } catch (error) {
    checks.push(tlsOrNetworkFailure(issuer, error, config));
    return done();
  }
  const named = (resource.json as { resource?: unknown } | null)?.resource;
  if (resource.response.status !== 200 || typeof named !== "string") {
    checks.push(unexpectedAnswer(resourceTitle, resource.response, port));
    return done();
  }
  checks.push(
    named === config.resourceUrl
      ? { ok: true, title: resourceTitle }
      : {
          ok: false,
          title: resourceTitle,
          detail: `the daemon behind the tunnel names ${named}`,
          fix: `set OAUTH_ISSUER_URL=${issuer} for the hermes-mcp the tunnel reaches, and restart it`,
        },
  );
  const clock = clockCheck(resource.response.headers.get("date"), Date.now());

  // 2. RFC 8414 §3.3: clients compare the issuer byte for byte with the URL they started from.
  try {
    const metadata = await fetchJson(`${issuer}/.well-known/oauth-authorization-server`);
    const seen = (metadata.json as { issuer?: unknown } | null)?.issuer;
    const title = "issuer through the tunnel byte-identical to OAUTH_ISSUER_URL";
    if (metadata.response.status !== 200 || typeof seen !== "string") checks.push(unexpectedAnswer(title, metadata.response, port));
    else
      checks.push(
        seen === issuer
          ? { ok: true, title }
          : {
              ok: false,
              title,
              detail: `the tunnel's answer says ${JSON.stringify(seen)}, this configuration ${JSON.stringify(issuer)}`,
              fix: `give the daemon behind the tunnel exactly OAUTH_ISSUER_URL=${issuer} (no trailing slash, same scheme and host), and restart it`,
            },
      );
  } catch (error) {
    checks.push(tlsOrNetworkFailure(issuer, error, config));
  }

  // 3. The proof that the tunnel reaches this daemon, and that its streams are not held back.
  const reachTitle = "the public URL reaches this hermes-mcp";
  if (probeKey === null) {
    checks.push({
      ok: false,
      title: reachTitle,
      detail:
        running === "unknown"
          ? "the running hermes-mcp's lock record could not be read, so there is no probe key to check its proof with"
          : "the running hermes-mcp recorded no probe key: it predates this version",
      fix: `restart it (${howToRestart(running === "unknown" ? null : running)}), then run doctor again`,
    });
  } else {
    const challenge = randomBytes(24).toString("base64url");
    try {
      const result = await probe(issuer, challenge);
      if (result.response.status !== 200) {
        checks.push(
          result.response.status === 404
            ? {
                ok: false,
                title: reachTitle,
                detail: "the daemon behind the tunnel has no probe: an older hermes-mcp, or another program",
                fix: `point the tunnel at http://127.0.0.1:${port}, and restart hermes-mcp if it predates this version`,
              }
            : unexpectedAnswer(reachTitle, result.response, port),
        );
      } else if (result.proof !== probeProof(probeKey, challenge)) {
        checks.push({
          ok: false,
          title: reachTitle,
          detail: "another hermes-mcp answers there (its proof is not this daemon's)",
          fix: `point the tunnel at http://127.0.0.1:${port} on this machine, and stop the other hermes-mcp or its tunnel`,
        });
      } else {
        checks.push({ ok: true, title: reachTitle, detail: running === null || running === "unknown" ? undefined : `pid ${running.pid}` });
        checks.push(
          result.streamed
            ? { ok: true, title: "streamed responses pass the tunnel unbuffered" }
            : {
                ok: false,
                title: "streamed responses pass the tunnel unbuffered",
                detail: "the stream arrived all at once at its end: progress and keep-alives would be held back until a call finishes",
                fix: "turn off response buffering for this host in whatever sits in front (nginx: `proxy_buffering off`; no Worker or transform that reads whole bodies)",
              },
        );
      }
    } catch (error) {
      checks.push(tlsOrNetworkFailure(issuer, error, config));
    }
  }
  if (clock) checks.push(clock);

  // 4. ngrok's free plan shows browsers an interstitial (ERR_NGROK_6024) before the consent page.
  try {
    const page = await fetch(`${issuer}/.well-known/oauth-authorization-server`, {
      headers: { "user-agent": BROWSER_UA, accept: "text/html" },
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const body = await page.text();
    if (page.headers.get("ngrok-error-code") === "ERR_NGROK_6024" || body.includes("ERR_NGROK_6024"))
      checks.push({
        ok: true,
        warn: true,
        title: "ngrok shows browsers its warning page before yours (ERR_NGROK_6024)",
        detail: "the consent page and Claude's sign-in open behind it",
        fix: "click Visit Site once per browser, or use a paid ngrok domain, a named cloudflared tunnel or Tailscale Funnel",
      });
  } catch {
    // Already reported above.
  }
  return done();
}
