// Credential-like text in the Hermes child's errors and log lines is masked before a client or the log sees it.

const MASK = "[REDACTED]";

/** The patterns Hermes itself redacts in MCP tool errors: GitHub tokens, sk- keys, bearer tokens (and our own token prefixes). */
const TOKENS: [RegExp, string][] = [
  [/\bgh[pousr]_[A-Za-z0-9_]{8,}/g, MASK],
  [/\bgithub_pat_[A-Za-z0-9_]{8,}/g, MASK],
  [/\bsk-[A-Za-z0-9_-]{8,}/g, MASK],
  [/\bhmcp_(?:pat|at|rt|cs|code)_[A-Za-z0-9_-]+/g, MASK],
  [/\b(bearer)(\s+)[A-Za-z0-9._~+/=-]{8,}/gi, `$1$2${MASK}`],
];

/** `token=…`, `key: …`, `API_KEY=…`, `password=…`, `secret=…` (any name ending so), quoted or not. */
const ASSIGNMENT = /\b([A-Za-z][A-Za-z0-9_-]*)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&"']+)/g;
const SECRET_NAME = /(?:^|[_-])(?:token|key|apikey|password|passwd|secret)$|^(?:token|key|password|passwd|secret)$/i;
/** Hermes's own identifiers that end like a secret but are not one (conversations are named by session key). */
const NOT_SECRET = new Set(["session_key"]);

export function redactCredentials(text: string): string {
  let out = text;
  for (const [pattern, replacement] of TOKENS) out = out.replace(pattern, replacement);
  return out.replace(ASSIGNMENT, (whole, name: string, sep: string) =>
    SECRET_NAME.test(name) && !NOT_SECRET.has(name.toLowerCase()) ? `${name}${sep}${MASK}` : whole,
  );
}
