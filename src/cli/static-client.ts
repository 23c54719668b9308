// The static OAuth client (Claude's Advanced settings): minting a fresh id and 256-bit secret, and writing them into the env file.
import { randomBytes } from "../crypto/primitives.ts";
import { envValues, readEnvText, setEnvLines, writePrivateFile } from "../config/env-file.ts";
import { generateToken } from "../crypto/tokens.ts";

export interface StaticClient {
  id: string;
  secret: string;
}

export function newStaticClient(): StaticClient {
  return { id: `hermes-${randomBytes(8).toString("hex")}`, secret: generateToken("") };
}

export type StaticClientWrite = { written: true; client: StaticClient; text: string } | { written: false; existingId: string | null };

/**
 * Puts a new client into the env file at `path` (folder 0700, file 0600, other lines kept) unless it already has one
 * and `replace` is false. `dryRun` computes the new text without writing it.
 */
export function writeStaticClient(path: string, options: { replace: boolean; dryRun?: boolean }): StaticClientWrite {
  const text = readEnvText(path);
  const existing = envValues(text);
  if ((existing.OAUTH_CLIENT_ID || existing.OAUTH_CLIENT_SECRET) && !options.replace) {
    return { written: false, existingId: existing.OAUTH_CLIENT_ID ?? null };
  }
  const client = newStaticClient();
  const next = setEnvLines(text, { OAUTH_CLIENT_ID: client.id, OAUTH_CLIENT_SECRET: client.secret });
  if (!options.dryRun) writePrivateFile(path, next);
  return { written: true, client, text: next };
}
