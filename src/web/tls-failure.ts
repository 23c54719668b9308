// Tells a certificate that failed verification (self-signed, expired, another host's) from a connection nobody answered.

/** The runtime's code for a TLS verification failure (e.g. DEPTH_ZERO_SELF_SIGNED_CERT), or null for any other error. */
export function untrustedCertificateCode(error: unknown): string | null {
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  return /CERT|SELF_SIGNED|UNABLE_TO|TLS|SSL/i.test(code) ? code : null;
}

/** Whether `error` is a TLS handshake that failed because the other end does not speak TLS there (https:// to a plain-http port). */
export function noTlsThere(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "EPROTO";
}
