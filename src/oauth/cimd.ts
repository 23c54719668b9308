// Client ID Metadata Documents: a client_id that is an https URL names its own metadata; fetched under SSRF guards, validated, cached within bounds.
import { randomBytes } from "../crypto/primitives.ts";
import { z } from "zod";
import { builtOnFirstUse } from "../schema-on-first-use.ts";
import type { Logger } from "../log.ts";
import type { StoredClient } from "../store/oauth-clients.ts";
import type { Store } from "../store/index.ts";
import {
  CIMD_DEFAULT_CACHE_MS,
  CIMD_MAX_BYTES,
  CIMD_MAX_CACHE_MS,
  CIMD_MIN_CACHE_MS,
  CIMD_TIMEOUT_MS,
  MAX_REDIRECT_URIS,
} from "./constants.ts";
import { isLoopbackRedirect, parseRedirectUri } from "../web/redirect-uri.ts";
import { fetchDocument, FetchRefused } from "./safe-fetch.ts";
import { stripUnsafeChars } from "../unsafe-text.ts";

const MEMORY_CACHE_LIMIT = 100;

const DocumentSchema = builtOnFirstUse(() =>
  z.looseObject({
    client_id: z.string(),
    client_name: z.string().max(200).optional(),
    redirect_uris: z.array(z.string().max(2048)).min(1).max(MAX_REDIRECT_URIS),
    token_endpoint_auth_method: z.string().max(64).optional(),
  }),
);

export type CimdResult = { ok: true; client: StoredClient } | { ok: false; reason: string };

/**
 * What the browser is told about any metadata document that could not be used, whatever went wrong (DNS, refused,
 * timeout, size, JSON, client_id mismatch…): /authorize must not be a port-scan oracle for the owner's network.
 * The specific reason goes to the log.
 */
export const UNUSABLE_DOCUMENT =
  "its client metadata document could not be used (it must be served over https at the client_id URL, without redirects, as a small JSON document naming that same client_id and its redirect_uris); the server log says why";

/** A client_id that names a metadata document: https (or, behind the test-only switch, http on loopback). */
export function isMetadataClientId(clientId: string, allowLoopbackHttp: boolean): boolean {
  return clientId.startsWith("https://") || (allowLoopbackHttp && clientId.startsWith("http://"));
}

/** The URL rules for a metadata client_id (draft-ietf-oauth-client-id-metadata-document §3). */
export function checkClientIdUrl(clientId: string, allowLoopbackHttp: boolean): { ok: true; url: URL } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return { ok: false, reason: "the client_id is not a valid URL" };
  }
  const loopbackHttp = allowLoopbackHttp && isLoopbackRedirect(url);
  if (url.protocol !== "https:" && !loopbackHttp) return { ok: false, reason: "a URL client_id must use https" };
  if (url.hash || clientId.includes("#")) return { ok: false, reason: "a URL client_id must not contain a fragment" };
  if (url.username || url.password) return { ok: false, reason: "a URL client_id must not contain user information" };
  if (url.pathname === "/" || url.pathname === "") return { ok: false, reason: "a URL client_id must have a path" };
  // Compared byte for byte with the document's client_id, so it must already be in normal form (no dot segments, case tricks).
  if (url.href !== clientId) return { ok: false, reason: "the client_id URL is not in normalised form" };
  return { ok: true, url };
}

/** Cache-Control max-age, clamped to [5 min, 24 h]; 1 h when absent (no-store/no-cache get the minimum). */
export function cacheLifetimeMs(cacheControl: string | null): number {
  if (!cacheControl) return CIMD_DEFAULT_CACHE_MS;
  if (/\b(no-store|no-cache)\b/i.test(cacheControl)) return CIMD_MIN_CACHE_MS;
  const match = /\bmax-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
  if (!match) return CIMD_DEFAULT_CACHE_MS;
  return Math.min(CIMD_MAX_CACHE_MS, Math.max(CIMD_MIN_CACHE_MS, Number(match[1]) * 1000));
}

/**
 * Resolves metadata clients. Fetched documents are kept in a small in-memory cache; a client is written to the
 * database only when the owner approves it (see `remember`), so strangers cannot grow the database by naming URLs.
 */
export class MetadataClients {
  private readonly memory = new Map<string, StoredClient>();

  constructor(
    private readonly store: Store,
    private readonly allowLoopbackHttp: boolean,
    private readonly log: Logger,
  ) {}

  /** Resolves a metadata client; every failure answers the same UNUSABLE_DOCUMENT reason, and logs the real one. */
  async resolve(clientId: string, now: number): Promise<CimdResult> {
    const result = await this.fetchAndValidate(clientId, now);
    if (result.ok) return result;
    this.log.info("oauth: client metadata document refused", { client_id: clientId.slice(0, 300), reason: result.reason });
    return { ok: false, reason: UNUSABLE_DOCUMENT };
  }

  private async fetchAndValidate(clientId: string, now: number): Promise<CimdResult> {
    const checked = checkClientIdUrl(clientId, this.allowLoopbackHttp);
    if (!checked.ok) return checked;
    const cached = this.memory.get(clientId);
    if (cached && (cached.cachedUntil ?? 0) > now) return { ok: true, client: cached };
    const stored = this.store.oauth.clients.get(clientId);
    if (stored && stored.kind === "cimd" && (stored.cachedUntil ?? 0) > now) return { ok: true, client: stored };

    let fetched;
    try {
      fetched = await fetchDocument(checked.url, {
        timeoutMs: CIMD_TIMEOUT_MS,
        maxBytes: CIMD_MAX_BYTES,
        allowLoopback: this.allowLoopbackHttp,
      });
    } catch (error) {
      return {
        ok: false,
        reason: `its client metadata document could not be fetched: ${error instanceof FetchRefused ? error.message : "network error"}`,
      };
    }
    if (fetched.status !== 200) return { ok: false, reason: `its client metadata document answered HTTP ${fetched.status}` };
    let json: unknown;
    try {
      json = JSON.parse(fetched.body);
    } catch {
      return { ok: false, reason: "its client metadata document is not JSON" };
    }
    const parsed = DocumentSchema.safeParse(json);
    if (!parsed.success)
      return {
        ok: false,
        reason: `its client metadata document is invalid (${parsed.error.issues[0]?.path.join(".") || "document"}: ${parsed.error.issues[0]?.message})`,
      };
    const doc = parsed.data;
    // Impersonation: a document is only valid for the URL it was fetched from.
    if (doc.client_id !== clientId)
      return { ok: false, reason: "its client metadata document names a different client_id than its own URL" };
    // A document is public, so it cannot carry a shared secret: only public clients ("none") are accepted.
    if (doc.token_endpoint_auth_method !== undefined && doc.token_endpoint_auth_method !== "none") {
      return { ok: false, reason: `its token_endpoint_auth_method "${doc.token_endpoint_auth_method}" is not supported (use "none")` };
    }
    for (const uri of doc.redirect_uris) {
      const redirect = parseRedirectUri(uri);
      if (!redirect.ok) return { ok: false, reason: `its redirect URI is refused: ${redirect.reason}` };
    }
    const client: StoredClient = {
      clientId,
      kind: "cimd",
      name: cleanName(doc.client_name) ?? checked.url.host,
      secretHash: null,
      authMethod: "none",
      redirectUris: doc.redirect_uris,
      createdAt: stored?.createdAt ?? now,
      lastUsedAt: stored?.lastUsedAt ?? null,
      cachedUntil: now + cacheLifetimeMs(fetched.cacheControl),
      // Provisional: the stored row's principal is the one that counts (see `remember`).
      principal: stored?.principal ?? clientId,
      approvedAt: stored?.approvedAt ?? null,
    };
    if (this.memory.size >= MEMORY_CACHE_LIMIT) this.memory.delete(this.memory.keys().next().value as string);
    this.memory.set(clientId, client);
    if (stored) this.store.oauth.clients.refreshMetadata(client);
    return { ok: true, client };
  }

  /**
   * Persists an approved metadata client, so its grants survive restarts and show in `clients list`. A row inserted
   * now gets a fresh principal (`<url>#<random>`): an app revoked and approved again is someone new, with no access
   * to the jobs or sessions of its former self; an existing row keeps its principal.
   */
  remember(client: StoredClient): void {
    if (client.kind === "cimd")
      this.store.oauth.clients.upsert({ ...client, principal: `${client.clientId}#${randomBytes(4).toString("hex")}` });
  }
}

/** Display names are attacker-chosen: control characters out, length bounded (the page escapes the rest). */
export function cleanName(name: string | undefined): string | undefined {
  const cleaned = name === undefined ? undefined : stripUnsafeChars(name).trim().slice(0, 100);
  return cleaned ? cleaned : undefined;
}
