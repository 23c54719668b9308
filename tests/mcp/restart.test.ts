// Restarts break nothing: kill -9 mid-job and a graceful SIGTERM, on the same database and port.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { databaseOf, startTestDaemon, type TestDaemon } from "../support/daemon.ts";
import type { FakeGateway } from "../support/fake-gateway.ts";
import { startGatewayHome, type GatewayHome } from "../support/world.ts";
import { connectClient, structuredOf } from "../support/mcp-client.ts";

let base: GatewayHome;
let gateway: FakeGateway;
let home: string;
let env: Record<string, string>;
let token: string;
beforeAll(async () => {
  base = await startGatewayHome("survivor");
  ({ gateway, home, env, token } = base);
});
afterAll(() => base.close());

const askAsync = async (daemon: TestDaemon, prompt: string): Promise<string> => {
  const client = await connectClient(daemon.url, token);
  const out = structuredOf(await client.callTool({ name: "hermes_ask", arguments: { prompt, async_mode: true } }));
  await client.close();
  return out.job_id as string;
};
const checkJob = async (daemon: TestDaemon, job_id: string, wait_seconds = 0) => {
  const client = await connectClient(daemon.url, token);
  const out = structuredOf(await client.callTool({ name: "hermes_check", arguments: { job_id, wait_seconds } }));
  await client.close();
  return out;
};

describe("restarts", () => {
  test("kill -9 mid-job: the token still works, finished jobs are kept, the interrupted job is failed with why — not re-run", async () => {
    const first = await startTestDaemon({ home, env });
    const done = await askAsync(first, "finished before the crash");
    expect((await checkJob(first, done, 5)).status).toBe("completed");
    const interrupted = await askAsync(first, "crash-victim [[hang]]");
    await gateway.waitFor(() => gateway.chats.some((c) => c.prompt?.startsWith("crash-victim")), 3000, "the victim's chat");
    await first.kill9();

    const second = await startTestDaemon({ home, env, port: first.port });
    try {
      expect((await checkJob(second, done)).result).toBe("echo: finished before the crash");
      const view = await checkJob(second, interrupted);
      expect(view).toMatchObject({ status: "failed", end_reason: "restart" });
      expect(view.error as string).toContain("may have finished");
      expect(gateway.chats.filter((c) => c.prompt?.startsWith("crash-victim")).length).toBe(1);
      const db = databaseOf(home);
      expect(statSync(db).mode & 0o777).toBe(0o600);
    } finally {
      await second.stop();
    }
  });

  test("SIGTERM: active jobs are interrupted at the gateway and recorded, and the process exits 0", async () => {
    const daemon = await startTestDaemon({ home, env });
    const job = await askAsync(daemon, "shutdown-victim [[hang]]");
    await gateway.waitFor(
      () => gateway.chats.some((c) => c.prompt?.startsWith("shutdown-victim") && c.outcome === "open"),
      3000,
      "the victim's chat",
    );
    const before = gateway.disconnects;
    expect(await daemon.stop()).toBe(0);
    expect(gateway.disconnects).toBeGreaterThan(before);
    expect(daemon.logs()).toContain("stopped");

    const again = await startTestDaemon({ home, env });
    try {
      const view = await checkJob(again, job);
      expect(view).toMatchObject({ status: "failed", end_reason: "shutdown" });
    } finally {
      await again.stop();
    }
  });
});

describe("hang-ups", () => {
  test("closing the terminal that runs serve stops it as Ctrl-C does, even when the shell sends a second hang-up", async () => {
    const daemon = await startTestDaemon({ home, env, launch: "terminal" });
    const job = await askAsync(daemon, "hangup-victim [[hang]]");
    await gateway.waitFor(
      () => gateway.chats.some((c) => c.prompt?.startsWith("hangup-victim") && c.outcome === "open"),
      3000,
      "the victim's chat",
    );
    daemon.hangUp();
    // The shell the terminal ran sends its jobs a hang-up of its own: not a second Ctrl-C that forces the exit.
    daemon.proc.kill("SIGHUP");
    expect(await daemon.proc.exited).toBe(0);
    expect(daemon.proc.signalCode).toBeNull();

    const again = await startTestDaemon({ home, env });
    try {
      // Recorded by the stopping daemon as a shutdown, not found by the next one as a crash ("restart").
      expect(await checkJob(again, job)).toMatchObject({ status: "failed", end_reason: "shutdown" });
    } finally {
      await again.stop();
    }
  });

  test("under nohup a hang-up changes nothing: it keeps serving", async () => {
    const daemon = await startTestDaemon({ home, env, launch: "nohup" });
    try {
      daemon.hangUp();
      await Bun.sleep(300);
      expect(daemon.proc.exitCode).toBeNull();
      expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
    } finally {
      expect(await daemon.stop()).toBe(0);
    }
  });
});
