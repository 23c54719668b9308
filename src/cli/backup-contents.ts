// A backup's contents as one line the owner recognises: size, schema, jobs, apps, tokens, connections.
import type { BackupContents } from "../store/backup.ts";

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export function describeContents(contents: BackupContents): string {
  const size =
    contents.bytes >= 1024 * 1024 ? `${(contents.bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(contents.bytes / 1024)} KiB`;
  return [
    size,
    `schema ${contents.version}`,
    plural(contents.jobs, "job"),
    plural(contents.apps, "app"),
    plural(contents.personalTokens, "personal token"),
    plural(contents.connections, "signed-in connection"),
  ].join(", ");
}
