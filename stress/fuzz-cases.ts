// The fuzz's generator: case N of seed S is one malformed or mutated HTTP request (exact bytes) against an endpoint of the daemon.
import type { Rng } from "./support/rng.ts";

/** What a case may build on: real credentials and forms, so mutations reach past the first check. */
export interface FuzzContext {
  host: string;
  token: string;
  staticId: string;
  staticSecret: string;
  /** Hidden fields of real consent pages (a registered client's /authorize). */
  consent: { req: string; csrf: string }[];
  dynamicClientId: string;
  redirectUri: string;
}

export interface FuzzCase {
  target: string;
  /** The mutations applied, in order: the replay names them. */
  mutations: string[];
  bytes: Uint8Array;
  /** Send only this many bytes, then wait and close (a client that dies mid-request). */
  truncateAt?: number;
  /**
   * The request is not valid HTTP/1.1 (request line, header syntax, framing), is cut short, or pipelines a second one:
   * the server may wait for the rest or close without a word (the client gives up after a while), or its parser may
   * answer 505 for a version it does not speak. A 5xx from hermes-mcp itself is still a violation.
   */
  broken: boolean;
}

type Headers = [string, string][];
interface Draft {
  method: string;
  path: string;
  version: string;
  headers: Headers;
  body: Uint8Array;
  mutations: string[];
  truncateAt?: number;
  broken: boolean;
  /** Bytes appended after the request (pipelining). */
  trailer?: Uint8Array;
}

const enc = new TextEncoder();
const bytesOf = (text: string): Uint8Array => enc.encode(text);
const concat = (...parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);

/** Byte sequences that are not valid UTF-8: stray continuation, overlong "/", overlong NUL, a UTF-8-encoded surrogate, 5-byte forms, FE/FF. */
const BAD_UTF8 = [[0x80], [0xc0, 0xaf], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xfe], [0xff], [0xe2, 0x82]];
const WEIRD_STRINGS = [
  "",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff\ud800",
  "\u202e\u2066evil",
  "\r\nX-Injected: 1",
  "../../../../etc/passwd",
  "%00%ff",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "${jndi:ldap://x}",
  "__proto__",
  "constructor",
  "🧨".repeat(100),
  "\u2028\u2029",
  "hmcp_pat_".padEnd(60, "A"),
];
const WEIRD_VALUES: unknown[] = [null, true, false, 0, -1, -0, 1.5, 2 ** 53 + 2, 1e308, -1e308, [], {}, [null], { a: { b: {} } }, "NaN"];

function weirdValue(r: Rng): unknown {
  const roll = r.int(0, 3);
  if (roll === 0) return r.pick(WEIRD_VALUES);
  if (roll === 1) return r.pick(WEIRD_STRINGS);
  if (roll === 2) return "x".repeat(r.pick([300, 5000, 70_000]));
  return { __proto__: { polluted: true }, constructor: { prototype: { polluted: true } }, toString: 1 };
}

// ---- valid starting points ------------------------------------------------------------------------------------------

function mcpBody(r: Rng): Record<string, unknown> | unknown[] {
  const id = r.pick<unknown>([1, "a", 0, r.int(1, 1e9)]);
  const call = (name: string, args: Record<string, unknown>) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args },
  });
  const choices: (() => Record<string, unknown> | unknown[])[] = [
    () => ({ jsonrpc: "2.0", id, method: "tools/list", params: {} }),
    () => ({ jsonrpc: "2.0", id, method: "ping" }),
    () => ({
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
    }),
    () => call("hermes_check", { job_id: `job_${r.int(0, 1e6)}`, wait_seconds: r.pick([0, 1, 0.5]) }),
    () => call("hermes_ask", { prompt: `fuzz ${r.int(0, 1e6)}`, async_mode: true }),
    () => call("hermes_ask", { prompt: `fuzz sync ${r.int(0, 1e6)}`, session_id: "fuzz-label" }),
    () => call("hermes_cancel", { job_id: `job_${r.int(0, 1e6)}` }),
    () => call("hermes_reset", {}),
    () => ({ jsonrpc: "2.0", id, method: "tasks/list", params: {} }),
    () => ({ jsonrpc: "2.0", id, method: "tasks/get", params: { taskId: "nope" } }),
    () => ({ jsonrpc: "2.0", method: "notifications/initialized" }),
    () => [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ],
  ];
  return r.pick(choices)();
}

function formFor(target: string, r: Rng, ctx: FuzzContext): [string, string][] {
  // Mostly the static client with its real secret (so checks past authentication run); wrong secrets go to made-up
  // client ids, since failed authentications lock the client they name for ten minutes.
  const creds: [string, string][] = r.chance(0.7)
    ? [
        ["client_id", ctx.staticId],
        ["client_secret", ctx.staticSecret],
      ]
    : [
        ["client_id", `fuzz-client-${r.int(0, 1e6)}`],
        ["client_secret", "wrong"],
      ];
  if (target === "token")
    return r.pick<[string, string][]>([
      [
        ["grant_type", "authorization_code"],
        ["code", `hmcp_code_${r.int(0, 1e9)}`],
        ["redirect_uri", ctx.redirectUri],
        ["code_verifier", "v".repeat(43)],
        ...creds,
      ],
      [["grant_type", "refresh_token"], ["refresh_token", `hmcp_rt_${r.int(0, 1e9)}`], ...creds],
      [["grant_type", r.pick(["client_credentials", "password", "implicit", ""])], ...creds],
    ]);
  if (target === "revoke")
    return [["token", r.pick([`hmcp_at_${r.int(0, 1e9)}`, ctx.token, "x"])], ["token_type_hint", "refresh_token"], ...creds];
  const form = r.pick(ctx.consent);
  return [
    ["req", form.req],
    ["csrf", form.csrf],
    ["password", r.pick(["wrong password", "", "x".repeat(300)])],
    ["action", r.pick(["approve", "deny", "other"])],
  ];
}

function authorizeQuery(r: Rng, ctx: FuzzContext): [string, string][] {
  const client = r.chance(0.5) ? ctx.staticId : ctx.dynamicClientId;
  return [
    ["response_type", "code"],
    ["client_id", client],
    ["redirect_uri", r.chance(0.8) ? ctx.redirectUri : "https://evil.example/cb"],
    ["code_challenge", "c".repeat(43)],
    ["code_challenge_method", "S256"],
    ["state", "s"],
    ["resource", `http://${ctx.host}/mcp`],
  ];
}

/** Percent-encodes the UTF-8 bytes of any string (a lone surrogate, which encodeURIComponent refuses, becomes U+FFFD). */
const pct = (text: string): string =>
  [...Buffer.from(text, "utf8")]
    .map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, "0")}`))
    .join("");
const formText = (pairs: [string, string][]): string => pairs.map(([k, v]) => `${pct(k)}=${pct(v)}`).join("&");

function baseDraft(target: string, r: Rng, ctx: FuzzContext): Draft {
  const common: Headers = [
    ["Host", ctx.host],
    ["Connection", "close"],
  ];
  const draft = (method: string, path: string, headers: Headers, body = ""): Draft => ({
    method,
    path,
    version: "HTTP/1.1",
    headers: [...common, ...headers],
    body: bytesOf(body),
    mutations: [],
    broken: false,
  });
  const json = (value: unknown) => JSON.stringify(value);
  switch (target) {
    case "mcp":
      return draft(
        "POST",
        "/mcp",
        [
          ["Authorization", `Bearer ${ctx.token}`],
          ["Content-Type", "application/json"],
          ["Accept", "application/json, text/event-stream"],
          ...(r.chance(0.3) ? ([["MCP-Protocol-Version", r.pick(["2025-06-18", "2025-11-25", "2026-07-28"])]] as Headers) : []),
        ],
        json(mcpBody(r)),
      );
    case "token":
    case "revoke":
      return draft("POST", `/${target}`, [["Content-Type", "application/x-www-form-urlencoded"]], formText(formFor(target, r, ctx)));
    case "consent":
      return draft(
        "POST",
        "/authorize",
        [
          ["Content-Type", "application/x-www-form-urlencoded"],
          ["Origin", `http://${ctx.host}`],
          ["Sec-Fetch-Site", "same-origin"],
        ],
        formText(formFor(target, r, ctx)),
      );
    case "authorize":
      return draft("GET", `/authorize?${formText(authorizeQuery(r, ctx))}`, []);
    case "register":
      return draft(
        "POST",
        "/register",
        [["Content-Type", "application/json"]],
        // Mostly refused metadata: 20 accepted registrations lock the address for ten minutes, after which nothing
        // reaches the validator.
        json({
          redirect_uris: r.chance(0.05)
            ? [ctx.redirectUri]
            : r.pick([
                [],
                ["javascript:alert(1)"],
                ["http://evil.example/cb"],
                ["https://a.example/cb#frag"],
                Array(11).fill(ctx.redirectUri),
                [""],
              ]),
          client_name: "fuzz",
          token_endpoint_auth_method: r.pick(["none", "client_secret_post", "private_key_jwt"]),
        }),
      );
    default:
      return draft("GET", r.pick(["/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/mcp", "/healthz"]), []);
  }
}

// ---- mutations --------------------------------------------------------------------------------------------------------

type Mutation = (d: Draft, r: Rng, ctx: FuzzContext) => void;

const setHeader = (d: Draft, name: string, value: string | null): void => {
  d.headers = d.headers.filter(([k]) => k.toLowerCase() !== name.toLowerCase());
  if (value !== null) d.headers.push([name, value]);
};
const bodyText = (d: Draft): string => new TextDecoder().decode(d.body);

/** Mutations of the body's content (JSON or form). */
const BODY: Record<string, Mutation> = {
  truncated: (d, r) => {
    d.body = d.body.subarray(0, r.int(0, Math.max(0, d.body.length - 1)));
  },
  "invalid utf-8": (d, r) => {
    const at = r.int(0, d.body.length);
    d.body = concat(d.body.subarray(0, at), Uint8Array.from(r.pick(BAD_UTF8)), d.body.subarray(at));
  },
  "random bytes": (d, r) => {
    const body = Uint8Array.from(d.body);
    for (let i = 0; i < r.int(1, 8) && body.length > 0; i++) body[r.int(0, body.length - 1)] = r.int(0, 255);
    d.body = body;
  },
  "NUL bytes": (d, r) => {
    const at = r.int(0, d.body.length);
    d.body = concat(d.body.subarray(0, at), new Uint8Array(r.int(1, 4)), d.body.subarray(at));
  },
  "wrong type": (d, r) => {
    try {
      const value = JSON.parse(bodyText(d)) as unknown;
      d.body = bytesOf(JSON.stringify(mutateJson(value, r)));
    } catch {
      d.body = bytesOf(JSON.stringify(weirdValue(r)));
    }
  },
  "deep nesting": (d, r) => {
    const depth = r.pick([64, 1000, 20_000, 200_000]);
    const deep = `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const text = bodyText(d);
    d.body = bytesOf(text.includes('"arguments":{') ? text.replace('"arguments":{', `"arguments":{"deep":${deep},`) : deep);
  },
  "huge field": (d, r) => {
    const size = r.pick([70_000, 1_000_000, 5_000_000]);
    const text = bodyText(d);
    const huge = r.chance(0.5) ? "A".repeat(size) : "é".repeat(size / 2);
    d.body = bytesOf(text.startsWith("{") ? `{"huge":"${huge}",${text.slice(1)}` : `${text}&huge=${huge}`);
  },
  "duplicate keys": (d, r) => {
    const text = bodyText(d);
    if (text.startsWith("{")) d.body = bytesOf(`{"jsonrpc":1,"method":${JSON.stringify(r.pick(WEIRD_STRINGS))},${text.slice(1)}`);
    else {
      const first = text.split("&")[r.int(0, Math.max(0, text.split("&").length - 1))] ?? "a=b";
      d.body = bytesOf(`${text}&${first.split("=")[0]}=${pct(String(r.pick(WEIRD_STRINGS)))}`);
    }
  },
  "bad percent-encoding": (d, r) => {
    d.body = concat(
      d.body,
      bytesOf(
        `&${r.pick(["a=%zz", "b=%", "c=%f", "d=%ff%fe", "e=%c0%af", "f=%ed%a0%80", "g=%00", "=x", "&&&", "h", "i[]=1&i[]=2", "j=1;k=2", "+=+"])}`,
      ),
    );
  },
  "weird JSON text": (d, r) => {
    d.body = bytesOf(
      r.pick([
        "",
        "null",
        "[]",
        "{}",
        '"just a string"',
        "1e999999",
        '{"a":"\\ud800"}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hermes_ask","arguments":{"prompt":"\\u0000"}}}',
        "\ufeff{}",
        "[".repeat(100),
        "{,}",
        '{"id":1,"method":"tools/call"',
        `[${Array.from({ length: 2000 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"ping"}`).join(",")}]`,
      ]),
    );
  },
};

function mutateJson(value: unknown, r: Rng, depth = 0): unknown {
  if (depth > 6 || typeof value !== "object" || value === null) return weirdValue(r);
  if (Array.isArray(value)) return r.chance(0.3) ? weirdValue(r) : value.map((v) => (r.chance(0.5) ? mutateJson(v, r, depth + 1) : v));
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0 || r.chance(0.15)) return weirdValue(r);
  const [key, inner] = r.pick(entries);
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  if (r.chance(0.15)) delete copy[key];
  else copy[key] = r.chance(0.5) ? mutateJson(inner, r, depth + 1) : weirdValue(r);
  if (r.chance(0.1)) copy[r.pick(WEIRD_STRINGS)] = weirdValue(r);
  return copy;
}

/** Mutations of the headers and request line. */
const HEAD: Record<string, Mutation> = {
  "content-type": (d, r) =>
    setHeader(
      d,
      "Content-Type",
      r.pick([
        null,
        "",
        "text/plain",
        "application/json; charset=utf-16",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "application/json, text/html",
        "APPLICATION/JSON;;;",
        "\u00ff",
      ]),
    ),
  accept: (d, r) =>
    setHeader(d, "Accept", r.pick([null, "", "application/json", "text/event-stream", "*/*", "text/html", "x".repeat(10_000)])),
  authorization: (d, r, ctx) => {
    const value = r.pick([
      null,
      "",
      "Bearer",
      "Bearer ",
      "bearer " + ctx.token,
      `Bearer ${ctx.token}x`,
      `Bearer  ${ctx.token}`,
      `Basic ${btoa("a:b")}`,
      "Basic !!!",
      `Basic ${btoa("nocolon")}`,
      `Basic ${btoa(`${ctx.staticId}:%zz`)}`,
      `Bearer ${"A".repeat(9000)}`,
      "Digest x",
      `Bearer ${ctx.token}, Bearer x`,
    ]);
    setHeader(d, "Authorization", value);
    if (r.chance(0.2)) d.headers.push(["Authorization", `Bearer ${ctx.token}`]);
  },
  host: (d, r, ctx) => {
    const value = r.pick([null, "", "evil.example", `${ctx.host}.evil.example`, "127.0.0.1:1", "[::1]", "localhost", "x".repeat(3000)]);
    setHeader(d, "Host", value);
    if (value === null) d.broken = true; // HTTP/1.1 requires Host (RFC 9112 §3.2)
    if (r.chance(0.2)) d.headers.push(["Host", "evil.example"]);
  },
  origin: (d, r) => setHeader(d, "Origin", r.pick(["null", "https://evil.example", "http://127.0.0.1.evil", "::::", "", "file://"])),
  "sec-fetch-site": (d, r) => setHeader(d, "Sec-Fetch-Site", r.pick(["cross-site", "none", "same-site", ""])),
  "mcp headers": (d, r) => {
    setHeader(d, "MCP-Protocol-Version", r.pick(["", "1999-01-01", "2026-07-28", "garbage", "2025-06-18\u0000", "9".repeat(500)]));
    if (r.chance(0.5)) setHeader(d, "Mcp-Session-Id", r.pick(["", "x", "z".repeat(2000), "../../"]));
  },
  "huge header": (d, r) => {
    d.headers.push([`X-Huge-${r.int(0, 9)}`, "h".repeat(r.pick([8_000, 20_000, 100_000]))]);
  },
  "many headers": (d, r) => {
    for (let i = 0; i < r.pick([100, 500, 2000]); i++) d.headers.push([`X-Many-${i}`, String(i)]);
  },
  "header bytes": (d, r) => {
    d.headers.push([
      r.pick(["X-Bad", "X Bad", "X-Bad:", ":", "X-\u00e9"]),
      r.pick(["a\u0000b", "\u00ff\u00fe", "a\rb", "folded\r\n continued"]),
    ]);
    d.broken = true;
  },
  "content-length": (d, r) => {
    const value = r.pick(["-1", "abc", "1e3", " 5", "99999999999999999999", "0"]);
    d.headers.push(["Content-Length", value]);
    if (r.chance(0.5)) d.headers.push(["Content-Length", "3"]);
    d.broken = true;
  },
  chunked: (d, r) => {
    setHeader(d, "Transfer-Encoding", r.pick(["chunked", "chunked, gzip", "gzip, chunked", "identity", "CHUNKED"]));
    const size = d.body.length.toString(16);
    d.body = concat(
      bytesOf(r.pick([`${size}\r\n`, `${size};ext=1\r\n`, "zz\r\n", `${size}\n`, "-1\r\n", `FFFFFFFFFFFFFFFFF\r\n`])),
      d.body,
      bytesOf(r.pick(["\r\n0\r\n\r\n", "\r\n", "", "\r\n0\r\nTrailer: x\r\n\r\n", "0\r\n\r\n"])),
    );
    d.broken = true;
  },
  "content-encoding": (d, r) => setHeader(d, "Content-Encoding", r.pick(["gzip", "br", "deflate", "zstd", "gzip, gzip"])),
  expect: (d) => setHeader(d, "Expect", "100-continue"),
  method: (d, r) => {
    d.method = r.pick(["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE", "post", "CONNECT", "FOO", "G\u00c9T"]);
    if (["post", "FOO", "G\u00c9T", "CONNECT", "HEAD"].includes(d.method)) d.broken = true;
  },
  path: (d, r) => {
    const [path, query] = d.path.split("?");
    const mutated = r.pick([
      `${path}/`,
      `/${path}`,
      `${path}%00`,
      `${path}/..`,
      `/%2e%2e${path}`,
      (path ?? "").toUpperCase(),
      `${path};x`,
      `${path}${"/a".repeat(4000)}`,
      `http://evil.example${path}`,
      "*",
    ]);
    d.path = query === undefined ? mutated : `${mutated}?${query}`;
    if (mutated === "*" || mutated.startsWith("http")) d.broken = true;
  },
  query: (d, r) => {
    const extra = r.pick([
      "client_id=dup",
      "%zz",
      "%ff%fe=%c0%af",
      "redirect_uri=javascript:alert(1)",
      "state=" + "s".repeat(9000),
      "a=%00",
      "&&&&",
      "scope=" + "mcp%20".repeat(500),
      "response_type=token",
    ]);
    d.path += d.path.includes("?") ? `&${extra}` : `?${extra}`;
  },
  version: (d, r) => {
    d.version = r.pick(["HTTP/1.0", "HTTP/2.0", "HTTP/9.9", "HTTP/1.1 extra", "", "http/1.1", "HTTP/1.1\u0000"]);
    if (d.version !== "HTTP/1.0") d.broken = true;
  },
  pipelined: (d, r, ctx) => {
    setHeader(d, "Connection", "keep-alive");
    const next = baseDraft(r.pick(TARGETS), r, ctx);
    applyOne(next, r, ctx);
    d.trailer = serialise(next);
    // Bun closes a connection whose next request arrives while an asynchronous answer is pending: pipelining is
    // exercised for crashes only (no browser or MCP client pipelines).
    d.broken = true;
  },
  "truncated in flight": (d, r) => {
    d.truncateAt = -r.int(1, Math.max(1, d.body.length)); // resolved against the serialised request below
    d.broken = true;
  },
};

const TARGETS = ["mcp", "mcp", "mcp", "token", "revoke", "authorize", "consent", "register", "discovery"] as const;

function applyOne(d: Draft, r: Rng, ctx: FuzzContext): void {
  const table = r.chance(d.body.length > 0 ? 0.55 : 0.1) ? BODY : HEAD;
  const name = r.pick(Object.keys(table));
  (table[name] as Mutation)(d, r, ctx);
  d.mutations.push(name);
}

function serialise(d: Draft): Uint8Array {
  const headers = [...d.headers];
  const framed = headers.some(([k]) => ["content-length", "transfer-encoding"].includes(k.toLowerCase()));
  if (!framed && (d.body.length > 0 || d.method === "POST")) headers.push(["Content-Length", String(d.body.length)]);
  // Header values go out as latin1 bytes, exactly as written (a UTF-8 character is its own abuse).
  const head = `${d.method} ${d.path} ${d.version}`.trim() + "\r\n" + headers.map(([k, v]) => `${k}: ${v}\r\n`).join("") + "\r\n";
  return concat(Buffer.from(head, "latin1"), d.body);
}

/** Case `index` of a run: a target, 1–3 mutations, and the exact bytes to send. */
export function fuzzCase(r: Rng, ctx: FuzzContext): FuzzCase {
  const target = r.pick(TARGETS);
  const d = baseDraft(target, r, ctx);
  for (let i = 0, n = r.pick([1, 1, 2, 3]); i < n; i++) applyOne(d, r, ctx);
  let bytes = serialise(d);
  if (d.trailer) bytes = concat(bytes, d.trailer);
  const truncateAt = d.truncateAt === undefined ? undefined : Math.max(1, bytes.length + d.truncateAt);
  return { target, mutations: d.mutations, bytes, truncateAt, broken: d.broken };
}
