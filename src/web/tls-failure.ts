// Tells a certificate that failed verification (self-signed, expired, another host's) from a connection nobody answered.

/** The runtime's code for a TLS verification failure (e.g. DEPTH_ZERO_SELF_SIGNED_CERT), or null for any other error. */
export function untrustedCertificateCode(error: unknown): string | null {
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  return /CERT|SELF_SIGNED|UNABLE_TO|TLS|SSL/i.test(code) ? code : null;
}
