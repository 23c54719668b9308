// The verdicts behind doctor's public-URL checks, as pure functions: what a host name, a clock, unused sign-ins or a failed answer mean, and the fix.
import type { Config } from "../config/load.ts";
import type { Check } from "./doctor-checks.ts";
import { untrustedCertificateCode } from "../web/tls-failure.ts";

/** How long doctor waits for the tunnel (named in the timeout verdict). */
export const TUNNEL_TIMEOUT_MS = 10_000;
/** Beyond this, token lifetimes and TLS go wrong; a minute is worth a look. */
const CLOCK_FAIL_SECONDS = 300;
const CLOCK_WARN_SECONDS = 60;

/** Warnings the host name alone justifies. */
export function tunnelHostChecks(hostname: string): Check[] {
  const host = hostname.toLowerCase();
  if (host.endsWith(".trycloudflare.com"))
    return [
      {
        ok: true,
        warn: true,
        title: `${host} is a cloudflared quick tunnel: it gets a new name on every restart, which ends every connector`,
        fix: "use a named tunnel (`cloudflared tunnel create hermes-mcp`, see the README's Tunnels section) or ngrok with a reserved domain",
      },
    ];
  if (/\.ngrok-free\.(app|dev)$/.test(host) || host.endsWith(".ngrok.io"))
    return [
      {
        ok: true,
        warn: true,
        title: `${host} is an ngrok free domain: browsers see ngrok's warning page before the consent page`,
        fix: "click Visit Site once per browser, or use a paid ngrok domain, a named cloudflared tunnel or Tailscale Funnel",
      },
    ];
  return [];
}

/** The local clock against the Date header the tunnel's edge sent. */
export function clockCheck(dateHeader: string | null, now: number): Check | null {
  if (!dateHeader) return null;
  const remote = Date.parse(dateHeader);
  if (Number.isNaN(remote)) return null;
  const skew = Math.round(Math.abs(now - remote) / 1000);
  const title = `clock within ${skew} s of the tunnel's (Date: ${dateHeader})`;
  if (skew > CLOCK_FAIL_SECONDS)
    return {
      ok: false,
      title,
      detail: "token lifetimes and certificates are judged by this clock",
      fix: "turn on time sync: `timedatectl set-ntp true` (macOS: System Settings → General → Date & Time)",
    };
  if (skew > CLOCK_WARN_SECONDS) return { ok: true, warn: true, title, fix: "turn on time sync: `timedatectl set-ntp true`" };
  return { ok: true, title };
}

/** OAuth sign-ins that never led to an /mcp call: the signature of a WAF or bot rule dropping the client after sign-in. */
export function unusedGrantsCheck(summary: { grants: number; used: number } | null): Check | null {
  if (!summary || summary.grants === 0 || summary.used > 0) return null;
  return {
    ok: true,
    warn: true,
    title: `${summary.grants} OAuth sign-in(s) completed, but no /mcp call ever followed`,
    detail: 'a WAF or a "Block AI bots" rule in front of the tunnel probably drops the client\'s MCP requests',
    fix: 'in Cloudflare: Security → Bots → turn off "Block AI bots" for this host (or skip /mcp in a WAF custom rule), then check Security → Events for blocked requests',
  };
}

export function tlsOrNetworkFailure(url: string, error: unknown, config: Config): Check {
  const code = String((error as { code?: unknown }).code ?? "");
  const message = (error as Error).message;
  const host = new URL(url).host;
  if (untrustedCertificateCode(error))
    return {
      ok: false,
      title: `public URL ${config.issuerUrl} reachable over trusted HTTPS`,
      detail: `the certificate for ${host} is not trusted (${code})`,
      fix: `make the tunnel serve a valid certificate for ${host} (cloudflared and ngrok do; check the host name in OAUTH_ISSUER_URL matches the tunnel's)`,
    };
  if ((error as Error).name === "TimeoutError")
    return {
      ok: false,
      title: `public URL ${config.issuerUrl} reachable over trusted HTTPS`,
      detail: `no answer within ${TUNNEL_TIMEOUT_MS / 1000} s`,
      fix: "check the tunnel is running and its host name resolves to it (`hermes-mcp service status`, `cloudflared tunnel info`)",
    };
  return {
    ok: false,
    title: `public URL ${config.issuerUrl} reachable over trusted HTTPS`,
    detail: `nothing answers at ${host} (${code || message})`,
    fix: `start the tunnel (\`hermes-mcp service install --tunnel cloudflared|ngrok\`, or run it by hand) and check OAUTH_ISSUER_URL is its URL`,
  };
}

/** The status of a response that is not hermes-mcp's answer, as one failing line with its fix. */
export function unexpectedAnswer(title: string, response: Response, port: number): Check {
  const status = response.status;
  if ([502, 503, 504, 520, 521, 522, 523, 530].includes(status))
    return {
      ok: false,
      title,
      detail: `the tunnel answers HTTP ${status}: it cannot reach hermes-mcp behind it`,
      fix: `start hermes-mcp (\`hermes-mcp service status\`) and point the tunnel at http://127.0.0.1:${port}`,
    };
  if (status === 421)
    return {
      ok: false,
      title,
      detail: "hermes-mcp refused the Host header the tunnel sends (421)",
      fix: "make the tunnel pass the public host name through, or add the host it sends to MCP_ALLOWED_HOSTS",
    };
  if (response.headers.get("ngrok-error-code"))
    return {
      ok: false,
      title,
      detail: `ngrok answered ${response.headers.get("ngrok-error-code")}`,
      fix: "start ngrok with the domain in OAUTH_ISSUER_URL",
    };
  return {
    ok: false,
    title,
    detail: `HTTP ${status} (${response.headers.get("content-type") ?? "no content type"}): not hermes-mcp's answer`,
    fix: `point the tunnel at http://127.0.0.1:${port}, where hermes-mcp listens`,
  };
}
