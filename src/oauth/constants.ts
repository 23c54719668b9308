// The authorization server's fixed values: token prefixes, the one scope, lifetimes and bounds (configurable ones live in Config).

/** Prefixes make leaked credentials recognisable (and secret scanners able to find them); the rest is 256 random bits. */
export const ACCESS_TOKEN_PREFIX = "hmcp_at_";
export const REFRESH_TOKEN_PREFIX = "hmcp_rt_";
export const CODE_PREFIX = "hmcp_code_";
export const CLIENT_SECRET_PREFIX = "hmcp_cs_";
/** Registered client ids are public identifiers, not secrets. */
export const CLIENT_ID_PREFIX = "hmcp_client_";

/** The only scope there is: run tasks on the owner's Hermes Agent. Anything else requested is ignored, never refused. */
export const SCOPE = "hermes";

/** RFC 6749 §4.1.2: codes are short-lived (10 minutes at most); ~60 s is plenty for any client's redirect round trip. */
export const CODE_TTL_MS = 60_000;
/** Spent refresh tokens are remembered this long, so that a stolen one presented later is still recognised (RFC 9700 §4.14.2). */
export const SPENT_REFRESH_MEMORY_MS = 90 * 86_400_000;
/** Used codes are remembered this long past expiry, so a late replay is still recognised (RFC 6749 §10.5). */
export const CODE_REPLAY_MEMORY_MS = 24 * 3_600_000;
/** Outstanding (unredeemed) codes kept at once; the oldest are evicted beyond it (bounded, never refused). */
export const MAX_OUTSTANDING_CODES = 1000;

/** Registrations the owner never approved are deleted after this (a registration flood leaves nothing behind for long). */
export const PENDING_REGISTRATION_TTL_MS = 3_600_000;
/** Never-approved registrations kept at once: beyond it the oldest are evicted, or new ones refused while all are young. */
export const MAX_PENDING_REGISTRATIONS = 500;
/** A registration younger than this is never evicted: the owner may be on its consent page right now. */
export const PENDING_REGISTRATION_PROTECTED_MS = 15 * 60_000;
/** A registration request body larger than this is refused (RFC 7591 documents are small). */
export const MAX_REGISTRATION_BYTES = 16 * 1024;
/** Form bodies (/token, /revoke, the consent form) larger than this are refused. */
export const MAX_FORM_BYTES = 16 * 1024;
export const MAX_REDIRECT_URIS = 10;

/** A consent page must be submitted within this (its anti-CSRF token expires). */
export const CONSENT_TTL_MS = 10 * 60_000;

/** Client ID Metadata Documents: fetch bounds and cache bounds (Cache-Control honoured within them). */
export const CIMD_TIMEOUT_MS = 5_000;
export const CIMD_MAX_BYTES = 10 * 1024;
export const CIMD_MIN_CACHE_MS = 5 * 60_000;
export const CIMD_DEFAULT_CACHE_MS = 3_600_000;
export const CIMD_MAX_CACHE_MS = 24 * 3_600_000;

/** Housekeeping (expired tokens, codes, registrations, counters) runs at most this often, on the back of requests. */
export const SWEEP_EVERY_MS = 10 * 60_000;
