// doctor through the public URL, against a loopback HTTPS stand-in for the tunnel (self-signed, trusted only by the doctor runs here).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { clockCheck, tunnelHostChecks, unusedGrantsCheck } from "../../src/cli/doctor-tunnel-verdicts.ts";
import { freePort, runCli, startTestDaemon, type TestDaemon, tempHomes } from "../support/daemon.ts";
import { FAKE_GATEWAY_KEY, type FakeGateway, startFakeGateway } from "../support/fake-gateway.ts";

const newHome = tempHomes();
const certDir = newHome();
const CERT = join(certDir, "cert.pem");
const KEY = join(certDir, "key.pem");
const STATIC_ID = "hermes-doctor-test";
const STATIC_SECRET = randomBytes(32).toString("base64url");

type Mode = "pass" | "buffer" | "other" | "bad-gateway" | "skew" | "issuer" | "ngrok";
let mode: Mode = "pass";
let gateway: FakeGateway;
let daemon: TestDaemon;
let other: TestDaemon;
let tunnel: Server<undefined>;
const tunnelPort = freePort();
const issuer = `https://127.0.0.1:${tunnelPort}`;

/** What the stand-in tunnel does with a request, per mode: pass it through, or break it the way real tunnels break. */
async function standIn(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (mode === "bad-gateway") return new Response("error code: 502", { status: 502, headers: { "content-type": "text/plain" } });
  if (mode === "ngrok" && request.headers.get("user-agent")?.startsWith("Mozilla/"))
    return new Response("<html>You are about to visit … ERR_NGROK_6024</html>", {
      headers: { "content-type": "text/html", "ngrok-error-code": "ERR_NGROK_6024" },
    });
  const target = mode === "other" ? other : daemon;
  const upstream = await fetch(`${target.url}${url.pathname}${url.search}`, { headers: request.headers, redirect: "manual" });
  const headers = new Headers(upstream.headers);
  if (mode === "skew") headers.set("date", new Date(Date.now() - 3600_000).toUTCString());
  if (mode === "buffer") return new Response(await upstream.arrayBuffer(), { status: upstream.status, headers });
  if (mode === "issuer" && url.pathname === "/.well-known/oauth-authorization-server") {
    const metadata = (await upstream.json()) as Record<string, unknown>;
    return Response.json({ ...metadata, issuer: `${issuer}/` }, { status: upstream.status });
  }
  return new Response(upstream.body, { status: upstream.status, headers });
}

beforeAll(async () => {
  const made = Bun.spawnSync(
    ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", KEY, "-out", CERT].concat(
      ["-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
    ),
    { stderr: "pipe" },
  );
  if (made.exitCode !== 0) throw new Error(`openssl could not make the test certificate: ${made.stderr.toString()}`);
  gateway = await startFakeGateway();
  const env = {
    HERMES_API_URL: gateway.url,
    HERMES_API_KEY: FAKE_GATEWAY_KEY,
    OAUTH_ISSUER_URL: issuer,
    OAUTH_CLIENT_ID: STATIC_ID,
    OAUTH_CLIENT_SECRET: STATIC_SECRET,
  };
  daemon = await startTestDaemon({ home: newHome(), env });
  other = await startTestDaemon({ home: newHome(), env });
  tunnel = serveTunnel();
});

const serveTunnel = (): Server<undefined> =>
  Bun.serve({ hostname: "127.0.0.1", port: tunnelPort, tls: { cert: Bun.file(CERT), key: Bun.file(KEY) }, fetch: standIn });

afterAll(async () => {
  tunnel?.stop(true);
  await daemon?.stop();
  await other?.stop();
  await gateway?.stop();
});

interface Row {
  status: "ok" | "warn" | "fail";
  title: string;
  detail?: string;
  fix?: string;
}

/** `doctor --json` on the daemon's own HOME, trusting the stand-in's certificate (and nothing else changed about TLS). */
async function doctor(extra: Record<string, string> = {}, trust = true): Promise<{ code: number; ok: boolean; checks: Row[] }> {
  const result = await runCli(["doctor", "--json"], {
    home: daemon.home,
    env: { ...daemon.env, ...(trust ? { NODE_EXTRA_CA_CERTS: CERT } : {}), ...extra },
  });
  const parsed = JSON.parse(result.stdout) as { ok: boolean; checks: Row[] };
  return { code: result.code, ...parsed };
}
const row = (checks: Row[], title: RegExp): Row | undefined => checks.find((c) => title.test(c.title));

describe("doctor through a working tunnel", () => {
  test("proves it reaches this daemon, the issuer is exact, streams pass unbuffered and the clock agrees", async () => {
    mode = "pass";
    const result = await doctor();
    expect(result.checks.filter((c) => c.status === "fail")).toEqual([]);
    expect(result.code).toBe(0);
    expect(result.ok).toBe(true);
    for (const title of [/reachable over trusted HTTPS/, /byte-identical/, /reaches this hermes-mcp/, /unbuffered/, /^clock within/])
      expect(row(result.checks, title)?.status, String(title)).toBe("ok");
  });
});

describe("the probe key, in the running daemon's lock record", () => {
  const lockRecord = (): string => join(daemon.home, ".local", "share", "hermes-mcp", "hermes-mcp.db.lock.json");

  test("is used, never shown: doctor's whole output holds no trace of it", async () => {
    mode = "pass";
    const key = (JSON.parse(readFileSync(lockRecord(), "utf8")) as { probe_key?: string }).probe_key ?? "";
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const result = await runCli(["doctor", "--json"], { home: daemon.home, env: { ...daemon.env, NODE_EXTRA_CA_CERTS: CERT } });
    expect(JSON.parse(result.stdout).checks.find((c: Row) => /reaches this hermes-mcp/.test(c.title))?.status).toBe("ok");
    expect(`${result.stdout}${result.stderr}`).not.toContain(key);
  });

  test("a record that cannot be read while the lock is held: said so, nothing proven", async () => {
    mode = "pass";
    const saved = readFileSync(lockRecord(), "utf8");
    writeFileSync(lockRecord(), "not json");
    try {
      expect(row((await doctor()).checks, /reaches this hermes-mcp/)).toMatchObject({
        status: "fail",
        detail: expect.stringContaining("lock record could not be read"),
      });
    } finally {
      writeFileSync(lockRecord(), saved);
    }
  });
});

describe("doctor through a broken tunnel names the cause and the fix", () => {
  test("a tunnel that buffers streams", async () => {
    mode = "buffer";
    const result = await doctor();
    expect(result.code).toBe(1);
    expect(row(result.checks, /unbuffered/)).toMatchObject({ status: "fail", fix: expect.stringContaining("buffering") });
    expect(row(result.checks, /reaches this hermes-mcp/)?.status).toBe("ok");
  });

  test("a tunnel that reaches another hermes-mcp", async () => {
    mode = "other";
    const row_ = row((await doctor()).checks, /reaches this hermes-mcp/);
    expect(row_).toMatchObject({ status: "fail", detail: expect.stringContaining("another hermes-mcp") });
    expect(row_?.fix).toContain(`http://127.0.0.1:${daemon.port}`);
  });

  test("a tunnel whose origin is down (502)", async () => {
    mode = "bad-gateway";
    const result = await doctor();
    expect(result.code).toBe(1);
    const failing = row(result.checks, /reachable over trusted HTTPS/);
    expect(failing).toMatchObject({ status: "fail", detail: expect.stringContaining("HTTP 502") });
    expect(failing?.fix).toContain(`http://127.0.0.1:${daemon.port}`);
  });

  test("no tunnel at all", async () => {
    tunnel.stop(true);
    try {
      const failing = row((await doctor()).checks, /reachable over trusted HTTPS/);
      expect(failing).toMatchObject({ status: "fail", detail: expect.stringContaining("nothing answers") });
      expect(failing?.fix).toContain("start the tunnel");
    } finally {
      tunnel = serveTunnel();
    }
  });

  test("a certificate nobody trusts (TLS verification stays on)", async () => {
    mode = "pass";
    const failing = row((await doctor({}, false)).checks, /reachable over trusted HTTPS/);
    expect(failing).toMatchObject({ status: "fail", detail: expect.stringContaining("not trusted") });
  });

  test("an issuer that is not byte-identical", async () => {
    mode = "issuer";
    const failing = row((await doctor()).checks, /byte-identical/);
    expect(failing).toMatchObject({ status: "fail", detail: expect.stringContaining(`"${issuer}/"`) });
    expect(failing?.fix).toContain(`OAUTH_ISSUER_URL=${issuer}`);
  });

  test("a clock an hour off", async () => {
    mode = "skew";
    expect(row((await doctor()).checks, /^clock within/)).toMatchObject({ status: "fail", fix: expect.stringContaining("timedatectl") });
  });

  test("ngrok's browser interstitial", async () => {
    mode = "ngrok";
    expect(row((await doctor()).checks, /ERR_NGROK_6024/)?.status).toBe("warn");
  });

  test("the human output puts the fix under the failing line", async () => {
    mode = "buffer";
    const result = await runCli(["doctor"], { home: daemon.home, env: { ...daemon.env, NODE_EXTRA_CA_CERTS: CERT } });
    expect(result.stdout).toMatch(/✖ streamed responses pass the tunnel unbuffered — .*\n {4}fix: turn off response buffering/);
  });
});

describe("when the checks through the public URL would prove nothing", () => {
  test("a daemon still serving an older OAUTH_ISSUER_URL: restart it, nothing probed", async () => {
    mode = "pass";
    const result = await doctor({ OAUTH_ISSUER_URL: "https://hermes.example.com", MCP_ALLOWED_HOSTS: "hermes.example.com" });
    expect(row(result.checks, /still serves as/)).toMatchObject({ status: "warn", fix: expect.stringContaining("restart") });
    expect(row(result.checks, /reachable over trusted HTTPS/)).toBeUndefined();
    expect(result.checks.filter((c) => c.status === "fail")).toEqual([]);
  });

  test("no daemon running: a warning to start it first, not a failure", async () => {
    const result = await runCli(["doctor", "--json"], {
      home: newHome(),
      env: { HERMES_API_URL: gateway.url, HERMES_API_KEY: FAKE_GATEWAY_KEY, OAUTH_ISSUER_URL: issuer, BIND_PORT: "0" },
    });
    const checks = (JSON.parse(result.stdout) as { checks: Row[] }).checks;
    expect(row(checks, /is not running/)?.status).toBe("warn");
    expect(row(checks, /reachable over trusted HTTPS/)).toBeUndefined();
  });
});

describe("sign-ins that no /mcp call followed", () => {
  test("warn about a WAF or Block AI bots rule, until a call arrives", async () => {
    mode = "pass";
    // Claude's static flow, straight to the daemon: tokens issued, no /mcp call yet.
    const verifier = randomBytes(32).toString("base64url");
    const authorize = new URL(`${daemon.url}/authorize`);
    for (const [key, value] of Object.entries({
      response_type: "code",
      client_id: STATIC_ID,
      redirect_uri: "https://claude.ai/api/mcp/auth_callback",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      state: "s",
      resource: `${issuer}/mcp`,
    }))
      authorize.searchParams.set(key, value);
    const code = new URL((await fetch(authorize, { redirect: "manual" })).headers.get("location") as string).searchParams.get(
      "code",
    ) as string;
    const tokens = (await (
      await fetch(`${daemon.url}/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          redirect_uri: "https://claude.ai/api/mcp/auth_callback",
          code_verifier: verifier,
          client_id: STATIC_ID,
          client_secret: STATIC_SECRET,
        }),
      })
    ).json()) as { access_token: string };
    expect(row((await doctor()).checks, /no \/mcp call ever followed/)).toMatchObject({
      status: "warn",
      fix: expect.stringContaining("Block AI bots"),
    });

    const call = await fetch(`${daemon.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(call.status).not.toBe(401);
    await call.body?.cancel();
    expect(row((await doctor()).checks, /no \/mcp call ever followed/)).toBeUndefined();
  });
});

describe("what the host name and headers alone say", () => {
  test("quick tunnels and ngrok free domains are warned about; other hosts are not", () => {
    expect(tunnelHostChecks("abc-def.trycloudflare.com")[0]?.title).toContain("new name on every restart");
    expect(tunnelHostChecks("x.ngrok-free.app")[0]?.title).toContain("warning page");
    expect(tunnelHostChecks("hermes.example.com")).toEqual([]);
  });

  test("the clock: within a minute is fine, minutes off warns, more fails; no Date header, no verdict", () => {
    const now = Date.parse("2026-01-01T12:00:00Z");
    expect(clockCheck("Thu, 01 Jan 2026 12:00:30 GMT", now)).toMatchObject({ ok: true });
    expect(clockCheck("Thu, 01 Jan 2026 12:02:00 GMT", now)).toMatchObject({ ok: true, warn: true });
    expect(clockCheck("Thu, 01 Jan 2026 11:00:00 GMT", now)).toMatchObject({ ok: false });
    expect(clockCheck(null, now)).toBeNull();
  });

  test("unused grants: a hint only when none was ever used", () => {
    expect(unusedGrantsCheck({ grants: 2, used: 0 })?.warn).toBe(true);
    expect(unusedGrantsCheck({ grants: 2, used: 1 })).toBeNull();
    expect(unusedGrantsCheck({ grants: 0, used: 0 })).toBeNull();
  });
});
