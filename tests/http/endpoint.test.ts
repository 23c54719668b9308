// The HTTP surface of /mcp: Host and Origin guards, bearer auth, body limit, malformed JSON, health, revocation at once, quiet logs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createToken, runCli } from "../support/daemon.ts";
import { connectClient, structuredOf } from "../support/mcp-client.ts";
import { startWorld, type World } from "../support/world.ts";

let world: World;
beforeAll(async () => {
  world = await startWorld({ LOG_LEVEL: "INFO", MCP_ALLOWED_HOSTS: "hermes.example.com" });
});
afterAll(async () => {
  await world.close();
});

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

function post(headers: Record<string, string>, body: BodyInit = INIT, path = "/mcp"): Promise<Response> {
  return fetch(`${world.daemon.url}${path}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${world.token}`,
      ...headers,
    },
    body,
  });
}

describe("/healthz", () => {
  test("answers without auth, with status and version only", async () => {
    const response = await fetch(`${world.daemon.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", version: expect.any(String) });
  });
});

describe("Host guard (DNS rebinding)", () => {
  test("/healthz sits behind it too: a foreign Host gets 421, loopback and allowed hosts get the answer", async () => {
    const foreign = await fetch(`${world.daemon.url}/healthz`, { headers: { Host: "evil.example.net" } });
    expect(foreign.status).toBe(421);
    expect((await foreign.json()).error).toBe("misdirected_request");
    for (const host of ["hermes.example.com", `127.0.0.1:${world.daemon.port}`, "localhost"]) {
      const response = await fetch(`${world.daemon.url}/healthz`, { headers: { Host: host } });
      expect(response.status).toBe(200);
      expect((await response.json()).status).toBe("ok");
    }
  });

  test("a foreign Host is refused with 421 and a fix", async () => {
    const response = await post({ Host: "evil.example.net" });
    expect(response.status).toBe(421);
    expect((await response.json()).error_description).toContain("MCP_ALLOWED_HOSTS");
  });

  test("hosts from MCP_ALLOWED_HOSTS and loopback names pass, with any port", async () => {
    for (const host of ["hermes.example.com", "hermes.example.com:443", "localhost:1234", "127.0.0.1"]) {
      const response = await post({ Host: host });
      expect(response.status).toBe(200);
      await response.body?.cancel();
    }
  });
});

describe("Origin guard", () => {
  test("a foreign Origin is refused with 403", async () => {
    const response = await post({ Origin: "https://evil.example.net" });
    expect(response.status).toBe(403);
    const nullOrigin = await post({ Origin: "null" });
    expect(nullOrigin.status).toBe(403);
  });

  test("our own and loopback origins, and no Origin at all, pass", async () => {
    for (const origin of ["https://hermes.example.com", "http://localhost:6274"]) {
      const response = await post({ Origin: origin });
      expect(response.status).toBe(200);
      await response.body?.cancel();
    }
  });
});

describe("bearer auth", () => {
  test("no token → 401 pointing at the protected-resource metadata", async () => {
    const response = await post({ Authorization: "" });
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge).toStartWith("Bearer ");
    expect(challenge).toContain(`resource_metadata="http://127.0.0.1:${world.daemon.port}/.well-known/oauth-protected-resource/mcp"`);
  });

  test("a wrong or malformed token → 401 invalid_token", async () => {
    for (const header of ["Bearer hmcp_pat_wrong", "Bearer nonsense", "Basic abc", "Bearer"]) {
      const response = await post({ Authorization: header });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
  });

  test("a token in the query string is refused outright", async () => {
    const response = await post({ Authorization: "" }, INIT, `/mcp?access_token=${world.token}`);
    expect(response.status).toBe(400);
  });

  test("the query-token refusal also catches percent-encoded parameter names, in any case of the escapes", async () => {
    const names = [
      "access%5Ftoken",
      "access%5ftoken",
      "%61ccess_token",
      "%61%63cess%5ftoken",
      "%61%63%63%65%73%73%5F%74%6F%6B%65%6E",
      "acc%65ss_tok%65n",
    ];
    for (const name of names) {
      for (const query of [`${name}=${world.token}`, `x=1&${name}=${world.token}`]) {
        // Even with a valid header, a token in the URL is refused: it has already leaked into logs.
        const withHeader = await post({}, INIT, `/mcp?${query}`);
        expect(withHeader.status).toBe(400);
        expect((await withHeader.json()).error_description).toContain("Authorization header");
        const without = await post({ Authorization: "" }, INIT, `/mcp?${query}`);
        expect(without.status).toBe(400);
      }
    }
    // Names that merely look alike are not refused.
    for (const query of ["access_tokens=1", "xaccess_token=1", "access%2Dtoken=1"]) {
      const response = await post({}, INIT, `/mcp?${query}`);
      expect(response.status).toBe(200);
      await response.body?.cancel();
    }
  });

  test("a revoked token stops working on the running daemon at once", async () => {
    const token = await createToken(world.home, "short-lived", world.env);
    const client = await connectClient(world.daemon.url, token);
    expect((await client.listTools()).tools.length).toBe(4);
    const revoked = await runCli(["token", "revoke", "short-lived"], { home: world.home, env: world.env });
    expect(revoked.code).toBe(0);
    await expect(client.listTools()).rejects.toThrow();
    const response = await post({ Authorization: `Bearer ${token}` });
    expect(response.status).toBe(401);
    await client.close().catch(() => {});
  });

  test("token list shows when a token was last used, never the token", async () => {
    const listed = await runCli(["token", "list"], { home: world.home, env: world.env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("tests");
    expect(listed.stdout).not.toContain("hmcp_pat_");
    expect(listed.stdout).not.toContain(world.token);
    expect(listed.stdout).toMatch(/tests\s+\S+ \S+Z\s+\S+ \S+Z/);
  });
});

describe("request bodies", () => {
  test("over 4 MiB → 413", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(4 * 1024 * 1024 + 10) } });
    const response = await post({}, big);
    expect(response.status).toBe(413);
  });

  test("malformed JSON → JSON-RPC parse error -32700", async () => {
    const response = await post({}, "{not json");
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe(-32700);
  });

  test("unknown paths are a clear 404", async () => {
    const response = await fetch(`${world.daemon.url}/nope`);
    expect(response.status).toBe(404);
    expect((await response.json()).error_description).toContain("/mcp");
  });
});

describe("logs at INFO", () => {
  test("carry routes, sizes, ids and durations — never prompts, answers or tokens", async () => {
    const client = await world.client();
    const secretPrompt = "PROMPT-CANARY-4242 please";
    const result = await client.callTool({ name: "hermes_ask", arguments: { prompt: secretPrompt, session_id: "log-check" } });
    expect(structuredOf(result).status).toBe("completed");
    // INFO lines reach stderr within 50 ms (buffered).
    for (let i = 0; i < 100 && !world.daemon.logs().includes("job completed"); i++) await Bun.sleep(20);
    const logs = world.daemon.logs();
    expect(logs).toContain("path=/mcp");
    expect(logs).toContain("job completed");
    expect(logs).toContain("session=log-check");
    expect(logs).not.toContain("PROMPT-CANARY-4242");
    expect(logs).not.toContain(world.token);
    expect(logs).not.toContain(world.env.HERMES_API_KEY as string);
  });
});
