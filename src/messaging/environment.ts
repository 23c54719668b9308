// The Hermes child's environment: a safe baseline of the daemon's own plus what HERMES_MCP_HERMES_ENV names — never the daemon's secrets.

/** Hermes's own convention for stdio MCP children: only these pass, plus every XDG_* variable. */
const BASELINE = ["PATH", "HOME", "USER", "LANG", "LC_ALL", "TERM", "SHELL", "TMPDIR"];

/**
 * Threat: the daemon's secrets (HERMES_API_KEY, OAUTH_CLIENT_SECRET, anything else in its environment) reaching a
 * child process whose output reaches remote callers. Only the baseline and the owner's explicit extras pass.
 */
export function childEnvironment(parent: Record<string, string | undefined>, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (BASELINE.includes(name) || name.startsWith("XDG_")) env[name] = value;
  }
  return { ...env, ...extra };
}
