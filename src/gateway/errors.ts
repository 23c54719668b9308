// GatewayError: every way a gateway call can fail, each with the one user-facing sentence for it (never the gateway's body).
import { isLoopbackHost } from "../web/loopback.ts";
import { firstCode, gatewayCode } from "./untrusted.ts";

export type GatewayErrorKind =
  | "unreachable"
  | "untrusted"
  | "unauthorized"
  | "busy"
  | "draining"
  | "incomplete"
  | "malformed"
  | "timeout"
  | "aborted"
  | "rejected"
  | "server_error";

export interface GatewayErrorOptions {
  status?: number;
  partialText?: string;
  cause?: unknown;
}

export class GatewayError extends Error {
  override name = "GatewayError";
  readonly kind: GatewayErrorKind;
  /** The HTTP status the gateway answered with, when it answered. */
  readonly status?: number;
  /** Text the agent had produced before the run stopped (incomplete runs, timeouts, cancels). */
  readonly partialText?: string;

  constructor(kind: GatewayErrorKind, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    if (options.status !== undefined) this.status = options.status;
    if (options.partialText !== undefined) this.partialText = options.partialText;
  }
}

/** Nothing answered at baseUrl (refused, DNS, reset before a response). */
export function unreachableError(baseUrl: string, cause?: unknown): GatewayError {
  return new GatewayError(
    "unreachable",
    `Hermes gateway unreachable at ${baseUrl} — is hermes-gateway running? (systemctl --user status hermes-gateway)`,
    { cause },
  );
}

/**
 * The TLS handshake with an https:// gateway failed (EPROTO): most often a plain-http port, but also a proxy asking for
 * a client certificate. Threat: advising http:// towards another machine would send the gateway's key in clear, so
 * plain http is suggested only for a gateway on this machine.
 */
export function noTlsThereError(baseUrl: string, cause?: unknown): GatewayError {
  const host = URL.parse(baseUrl)?.hostname ?? "";
  const local = isLoopbackHost(host) ? `; a gateway on this machine speaks plain http: set HERMES_API_URL=${plainHttpOf(baseUrl)}` : "";
  return new GatewayError(
    "unreachable",
    `the TLS handshake with the Hermes gateway at ${baseUrl} failed (EPROTO) — check that it serves https on that port${local}`,
    { cause },
  );
}

/** The same address over plain http. */
export const plainHttpOf = (baseUrl: string): string => baseUrl.replace(/^https:/i, "http:");

/**
 * What to do about a gateway certificate this machine does not trust (said by the daemon's error and by doctor). On
 * Windows the env file's runtime variables are not applied (no re-exec there: relaunch.ts), so the CA goes in the
 * user's environment.
 */
export function untrustedGatewayFix(platform: NodeJS.Platform = process.platform): string {
  const plainHttp = "set HERMES_API_URL to the gateway's plain http address on this machine (http://127.0.0.1:8642 unless you changed it)";
  return platform === "win32"
    ? `${plainHttp}, or run \`setx NODE_EXTRA_CA_CERTS C:\\path\\to\\its-ca.pem\` and start hermes-mcp from a new terminal (on Windows the env file cannot set it)`
    : `${plainHttp}, or put NODE_EXTRA_CA_CERTS=/path/to/its-ca.pem in the env file`;
}

/** An https gateway whose certificate failed verification: it answered, but nothing it says may be trusted. */
export function untrustedCertificateError(baseUrl: string, code: string, cause?: unknown): GatewayError {
  return new GatewayError(
    "untrusted",
    `Hermes gateway at ${baseUrl} has a TLS certificate this machine does not trust (${code}) — ${untrustedGatewayFix()}`,
    { cause },
  );
}

export function unauthorizedError(): GatewayError {
  return new GatewayError("unauthorized", "HERMES_API_KEY does not match API_SERVER_KEY in ~/.hermes/.env", { status: 401 });
}

export function forbiddenError(): GatewayError {
  return new GatewayError(
    "rejected",
    "Hermes gateway refused the request (403) — check that nothing adds an Origin header and that API_SERVER_KEY is set on the gateway",
    { status: 403 },
  );
}

export function busyError(): GatewayError {
  return new GatewayError("busy", "Hermes gateway is busy (too many concurrent runs) — try again shortly", { status: 429 });
}

export function drainingError(): GatewayError {
  return new GatewayError("draining", "Hermes gateway is draining (restarting) — try again shortly", { status: 503 });
}

/** The run ended without a complete answer; whatever text arrived is kept on the error. */
export function incompleteError(reason: string, partialText: string, status?: number): GatewayError {
  const kept = partialText.length > 0;
  return new GatewayError("incomplete", `Hermes run was incomplete (${reason})${kept ? " — partial answer kept" : ""}`, {
    status,
    partialText: kept ? partialText : undefined,
  });
}

export function malformedError(status?: number, partialText?: string): GatewayError {
  return new GatewayError("malformed", "unexpected response from the gateway", {
    status,
    partialText: partialText ? partialText : undefined,
  });
}

export function timeoutError(timeoutMs: number, partialText?: string): GatewayError {
  return new GatewayError("timeout", `no answer from the Hermes gateway within ${formatSeconds(timeoutMs)} s`, {
    partialText: partialText ? partialText : undefined,
  });
}

export function abortedError(partialText?: string): GatewayError {
  return new GatewayError("aborted", "request to the Hermes gateway was cancelled", { partialText: partialText ? partialText : undefined });
}

/**
 * Maps a non-2xx answer to its error. `code` is the envelope's `error.code`: only a short identifier such as
 * `body_too_large` is shown (gateway text never reaches the client raw); sentences and anything else are left out.
 * 429/503 map to busy/draining (the caller retries first); 502 with `agent_incomplete` is an incomplete run.
 */
export function statusError(status: number, code: string | null, incompleteReason?: string | null): GatewayError {
  if (status === 401) return unauthorizedError();
  if (status === 403) return forbiddenError();
  if (status === 429) return busyError();
  if (status === 503) return drainingError();
  if (status === 502 && (code === "agent_incomplete" || incompleteReason)) {
    return incompleteError(firstCode([incompleteReason], "agent_incomplete"), "", status);
  }
  if (status >= 400 && status < 500) {
    const shown = gatewayCode(code);
    const suffix = shown ? ` — ${shown}` : "";
    return new GatewayError("rejected", `Hermes gateway rejected the request (${status})${suffix}`, { status });
  }
  return new GatewayError("server_error", `Hermes gateway failed (${status})`, { status });
}

/** 90000 → "90", 1500 → "1.5", 250 → "0.25". */
export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return String(Number(seconds.toFixed(seconds < 1 ? 3 : 1)));
}
