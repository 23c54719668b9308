// Why hermes-mcp cannot listen where it is told to, beyond a busy port: one wording for `serve` and `doctor`.

/** The errno codes of an address that is not this machine's (or no address at all), as Bun.serve and Bun.listen report them. */
const NOT_THIS_MACHINE = new Set(["EADDRNOTAVAIL", "EINVAL", "ENOTFOUND", "EAI_AGAIN"]);

/** What stops a listen on BIND_HOST:BIND_PORT and what to set instead; null for any other error (a busy port included). */
export function unlistenable(error: unknown): { detail: string; fix: string } | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "EACCES") {
    return { detail: "the port needs extra privileges on this system", fix: "set BIND_PORT to 1024 or above (the default, 8765, is fine)" };
  }
  if (typeof code === "string" && NOT_THIS_MACHINE.has(code)) {
    return {
      detail: `BIND_HOST is not an address of this machine (${code})`,
      fix: "set BIND_HOST=127.0.0.1 and reach it through a tunnel, or to one of this machine's own addresses",
    };
  }
  return null;
}
