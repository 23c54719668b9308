// `hermes-mcp jobs list|show|cancel`: the owner sees every client's jobs, reads answers only on request, and stops a running job from another process.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { join } from "node:path";
import { openStore } from "../../src/store/index.ts";
import { createToken, databaseOf, runCli } from "../support/daemon.ts";
import { connectClient, structuredOf } from "../support/mcp-client.ts";
import { startWorld, type World } from "../support/world.ts";

let world: World;
let alice: Client;
let bob: Client;
let done: string;
let bobs: string;
const jobsCli = (...args: string[]) => runCli(["jobs", ...args], { home: world.home, env: world.env });
const askAsync = async (client: Client, prompt: string, extra: Record<string, unknown> = {}) =>
  (structuredOf(await client.callTool({ name: "hermes_ask", arguments: { prompt, async_mode: true, ...extra } })) as { job_id: string })
    .job_id;

beforeAll(async () => {
  world = await startWorld();
  alice = await world.client();
  bob = await connectClient(world.daemon.url, await createToken(world.home, "bob", world.env));
  done = (
    structuredOf(await alice.callTool({ name: "hermes_ask", arguments: { prompt: "the answer is forty-two", session_id: "quiz" } })) as {
      job_id: string;
    }
  ).job_id;
  bobs = await askAsync(bob, "bob's job");
  await bob.callTool({ name: "hermes_check", arguments: { job_id: bobs, wait_seconds: 5 } });
});
afterAll(async () => {
  await bob.close();
  await world.close();
});

describe("hermes-mcp jobs", () => {
  test("list shows every client's jobs as a table, newest first, without prompts or answers", async () => {
    const result = await jobsCli("list");
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^ID\s+CLIENT\s+STATUS\s+MODE\s+CREATED\s+WAITED\s+RAN\s+PROMPT\s+SESSION$/);
    expect(lines[1]).toContain(bobs);
    expect(lines[1]).toMatch(/pat:bob#[0-9a-f]{8}\s+completed\s+async/);
    expect(lines[2]).toContain(done);
    expect(lines[2]).toMatch(/pat:tests#[0-9a-f]{8}\s+completed\s+sync/);
    expect(lines[2]).toContain("quiz");
    expect(result.stdout).not.toContain("forty-two");
  });

  test("list filters by client (a token's name finds every generation of it) and by status; --json is for scripts", async () => {
    const byClient = await jobsCli("list", "--client", "pat:bob", "--json");
    expect(byClient.code).toBe(0);
    const rows = JSON.parse(byClient.stdout) as { id: string; principal: string; result?: unknown }[];
    expect(rows.map((r) => r.id)).toEqual([bobs]);
    expect(rows[0]?.result).toBeUndefined();
    const none = await jobsCli("list", "--status", "running");
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain("No jobs match");
  });

  test("an unknown --status is refused with the real statuses", async () => {
    const bad = await jobsCli("list", "--status", "finished");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('unknown status "finished"');
    expect(bad.stderr).toContain("pending, running, completed, failed, cancelled");
  });

  test("show gives prompt length, client and timings; the answer only with --answer", async () => {
    const shown = await jobsCli("show", done);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/client\s+pat:tests#[0-9a-f]{8}/);
    expect(shown.stdout).toMatch(/prompt\s+23 characters/);
    expect(shown.stdout).toMatch(/finished\s+\d{4}-\d\d-\d\d .*\(ran \d+\.\d s\)/);
    expect(shown.stdout).toContain("add --answer");
    expect(shown.stdout).not.toContain("forty-two");
    const withAnswer = await jobsCli("show", done.slice(0, 8), "--answer");
    expect(withAnswer.stdout).toContain("echo: the answer is forty-two");
    const missing = await jobsCli("show", "nope-nope");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("jobs list");
  });

  test("cancel stops a running job in the daemon: its gateway stream closes and the caller's long poll ends", async () => {
    const jobId = await askAsync(alice, "cancel me from the cli [[hang]]");
    await world.gateway.waitFor(
      () => world.gateway.chats.some((c) => c.prompt?.startsWith("cancel me from the cli") && c.outcome === "open"),
      3000,
      "the chat",
    );
    const disconnects = world.gateway.disconnects;
    const poll = alice.callTool({ name: "hermes_check", arguments: { job_id: jobId, wait_seconds: 30 } });
    const cancelled = await jobsCli("cancel", jobId);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stderr).toContain("cancelled");
    await world.gateway.waitForDisconnect(5000, disconnects + 1);
    expect(world.gateway.chats.find((c) => c.prompt?.startsWith("cancel me from the cli"))?.outcome).toBe("disconnected");
    const view = structuredOf(await poll);
    expect(view).toMatchObject({ job_id: jobId, status: "cancelled", end_reason: "owner_cancelled" });
    expect(view.error as string).toContain("hermes-mcp jobs cancel");
    const again = await jobsCli("cancel", jobId);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("already ended");
  });

  test("text a caller or Hermes chose cannot drive the owner's terminal: controls and bidi overrides are shown escaped", async () => {
    // A row from before labels were checked, with a hostile label, error and answer.
    const store = openStore(databaseOf(world.home));
    try {
      store.jobs.insert({
        id: "hostile-0001",
        principal: "pat:old",
        mode: "async",
        promptChars: 1,
        sessionLabel: "trip\u202Eevil\u001b[2J",
        createdAt: 1,
      });
      store.jobs.finish("hostile-0001", {
        status: "completed",
        result: "line one\nline two\u001b]0;pwned\u0007",
        endReason: "completed",
        finishedAt: 2,
      });
    } finally {
      store.close();
    }
    const listed = await jobsCli("list", "--client", "pat:old");
    const shown = await jobsCli("show", "hostile-0001", "--answer");
    for (const out of [listed.stdout, shown.stdout]) {
      expect(out).not.toMatch(/[\u001b\u0007\u202e]/);
      expect(out).toContain("trip\\u202eevil\\u001b[2J");
    }
    expect(shown.stdout).toContain("line one\nline two\\u001b]0;pwned\\u0007");
  });
});
