// A backup's contents as one line the owner recognises: size, schema, jobs, apps, tokens, connections.
import { sizeText } from "../size-text.ts";
import type { BackupContents } from "../store/backup.ts";

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? "" : "s"}`;

export function describeContents(contents: BackupContents): string {
  return [
    sizeText(contents.bytes),
    `schema ${contents.version}`,
    plural(contents.jobs, "job"),
    plural(contents.apps, "app"),
    plural(contents.personalTokens, "personal token"),
    plural(contents.connections, "signed-in connection"),
  ].join(", ");
}
