// A path as people write it in an env file: a leading ~/ is the home folder (neither env files nor systemd expand it).
import { join } from "node:path";

/** `path` with a leading `~` or `~/` replaced by `home`; unchanged otherwise, or when there is no home to use. */
export function expandHome(path: string, home: string | undefined): string {
  if (!home || !(path === "~" || path.startsWith("~/"))) return path;
  return join(home, path.slice(1));
}
