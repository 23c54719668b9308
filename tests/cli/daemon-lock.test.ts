// One daemon per database: a second `serve` changes nothing and names the first; a kill -9 leaves no stale lock; BIND_PORT=0 advertises the bound port.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, CLI_COMMAND, createToken, freePort, runCli, startTestDaemon, tempHomes, type TestDaemon } from "../support/daemon.ts";
import { FAKE_GATEWAY_KEY, reserveClosedPort, startFakeGateway, type FakeGateway } from "../support/fake-gateway.ts";
import { connectClient, structuredOf } from "../support/mcp-client.ts";
import { until } from "../support/until.ts";

let gateway: FakeGateway;
let env: Record<string, string>;
const home = tempHomes();
beforeAll(async () => {
  gateway = await startFakeGateway();
  env = { HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: gateway.url };
});
afterAll(async () => {
  await gateway.stop();
});

const askAsync = async (daemon: TestDaemon, token: string, prompt: string): Promise<string> => {
  const client = await connectClient(daemon.url, token);
  const out = structuredOf(await client.callTool({ name: "hermes_ask", arguments: { prompt, async_mode: true } }));
  await client.close();
  return out.job_id as string;
};
const checkJob = async (daemon: TestDaemon, token: string, job_id: string, wait_seconds = 0) => {
  const client = await connectClient(daemon.url, token);
  const out = structuredOf(await client.callTool({ name: "hermes_check", arguments: { job_id, wait_seconds } }));
  await client.close();
  return out;
};

describe("one daemon per database", () => {
  test("a second serve on the same database (another port) exits 1 naming the first, and the first one's running job still completes", async () => {
    const h = home();
    const token = await createToken(h, "t", env);
    const first = await startTestDaemon({ home: h, env });
    try {
      const job = await askAsync(first, token, "still mine [[delay:1500]]");
      await gateway.waitFor(
        () => gateway.chats.some((c) => c.prompt?.startsWith("still mine") && c.outcome === "open"),
        5000,
        "the running chat",
      );

      const second = await runCli(["serve"], { home: h, env: { ...env, BIND_PORT: String(freePort()) } });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`hermes-mcp is already running on this database (pid ${first.proc.pid}, port ${first.port})`);
      expect(second.stderr).toContain("Nothing was changed");
      // Started by hand, not as the service: how to stop that one, not a systemctl command that would find no unit.
      expect(second.stderr).toContain(`stop it first (Ctrl-C in the terminal where it runs, or kill ${first.proc.pid})`);
      expect(second.stderr).not.toContain("systemctl");
      // It says nothing about serving: the lock is taken before any start-up note.
      expect(second.stderr).not.toContain("serving as");

      const view = await checkJob(first, token, job, 20);
      expect(view.status).toBe("completed");
      expect(view.result as string).toContain("echo: still mine");
      expect(first.logs()).not.toContain("restarted");
    } finally {
      await first.stop();
    }
  });

  test("the same port and database: the lock speaks first (not 'port in use')", async () => {
    const h = home();
    const first = await startTestDaemon({ home: h, env });
    try {
      const second = await runCli(["serve"], { home: h, env: { ...env, BIND_PORT: String(first.port) } });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain("already running on this database");
    } finally {
      await first.stop();
    }
  });

  test("a daemon killed with SIGKILL leaves no lock behind: a new serve starts and recovers its jobs", async () => {
    const h = home();
    const token = await createToken(h, "t", env);
    const first = await startTestDaemon({ home: h, env });
    const job = await askAsync(first, token, "orphan [[hang]]");
    await gateway.waitFor(() => gateway.chats.some((c) => c.prompt?.startsWith("orphan")), 5000, "the orphan's chat");
    await first.kill9();

    const second = await startTestDaemon({ home: h, env });
    try {
      expect(await checkJob(second, token, job)).toMatchObject({ status: "failed", end_reason: "restart" });
    } finally {
      await second.stop();
    }
  });

  test("doctor beside a running daemon names it (pid, port) from the lock, and passes", async () => {
    const h = home();
    const daemon = await startTestDaemon({ home: h, env });
    try {
      const result = await runCli(["doctor"], { home: h, env: { ...env, BIND_PORT: String(daemon.port) } });
      expect(result.stdout).toContain(
        `✔ hermes-mcp is running on this database (pid ${daemon.proc.pid}, port ${daemon.port} on 127.0.0.1)`,
      );
      expect(result.stdout).not.toContain("in use");
      // The same code as this command: nothing to restart.
      expect(result.stdout).not.toContain("since replaced");
      expect(result.stdout).not.toContain("restart it");
      expect(result.code).toBe(0);
      // The CLI keeps working beside it.
      expect((await runCli(["token", "create", "--name", "beside"], { home: h, env })).code).toBe(0);
    } finally {
      await daemon.stop();
    }
  });
});

test.if(process.platform === "linux")(
  "doctor beside a daemon whose binary was replaced since it started (an upgrade) says to restart it, and how",
  async () => {
    const h = home();
    // The daemon runs from its own copy of the runtime, which is then replaced, as install.sh replaces the binary.
    const runtime = join(h, "hermes-mcp-runtime");
    copyFileSync(process.execPath, runtime);
    chmodSync(runtime, 0o755);
    const port = freePort();
    const proc = Bun.spawn([runtime, ...CLI_COMMAND.slice(1), "serve"], {
      cwd: h,
      env: baseEnv(h, { ...env, BIND_PORT: String(port) }),
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore",
    });
    try {
      for (
        let tries = 0;
        !(await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        ));
        tries++
      ) {
        if (tries > 400 || proc.exitCode !== null) throw new Error("the daemon did not start");
        await Bun.sleep(25);
      }
      renameSync(runtime, `${runtime}.old`);
      copyFileSync(`${runtime}.old`, runtime);
      rmSync(`${runtime}.old`);
      const result = await runCli(["doctor"], { home: h, env: { ...env, BIND_PORT: String(port) } });
      expect(result.stdout).toContain(`⚠ the running hermes-mcp (pid ${proc.pid}) runs a binary since replaced at ${runtime}`);
      expect(result.stdout).toContain("an upgrade installed after it started takes effect when it restarts");
      expect(result.stdout).toContain(
        `fix: restart it: stop it (Ctrl-C in the terminal where it runs, or \`kill ${proc.pid}\`) and start \`hermes-mcp serve\` again`,
      );
      expect(result.code).toBe(0);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  },
);
describe("BIND_PORT=0", () => {
  test("the daemon logs, advertises and records the port actually bound; doctor shows it", async () => {
    const h = home();
    const proc = Bun.spawn([...CLI_COMMAND, "serve"], {
      cwd: h,
      env: baseEnv(h, { ...env, BIND_PORT: "0" }),
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    let logs = "";
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of proc.stderr) logs += decoder.decode(chunk, { stream: true });
    })();
    try {
      await until("the listening line", () => logs.includes("hermes-mcp listening"));
      const port = Number(/url=http:\/\/127\.0\.0\.1:(\d+)/.exec(logs)?.[1]);
      expect(port).toBeGreaterThan(0);
      expect(logs).toContain(`mcp=http://127.0.0.1:${port}/mcp`);
      const metadata = (await (await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`)).json()) as {
        resource: string;
      };
      expect(metadata.resource).toBe(`http://127.0.0.1:${port}/mcp`);
      const authServer = (await (await fetch(`http://127.0.0.1:${port}/.well-known/oauth-authorization-server`)).json()) as {
        issuer: string;
      };
      expect(authServer.issuer).toBe(`http://127.0.0.1:${port}`);

      const doctor = await runCli(["doctor"], { home: h, env: { ...env, BIND_PORT: "0" } });
      expect(doctor.stdout).toContain(`port ${port} on 127.0.0.1)`);
      expect(doctor.stdout).toContain(`issuer URL http://127.0.0.1:${port} (local only)`);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  });

  test("doctor without a daemon says a free port is picked at start", async () => {
    const result = await runCli(["doctor"], { home: home(), env: { ...env, BIND_PORT: "0" } });
    expect(result.stdout).toContain("BIND_PORT=0: a free port on 127.0.0.1 is picked at start");
    expect(result.stdout).not.toContain("127.0.0.1:0");
  });
});

describe("serve's gateway probe at start", () => {
  test("gateway down: serve starts anyway and warns, naming the fix", async () => {
    const url = `http://127.0.0.1:${reserveClosedPort()}`;
    const daemon = await startTestDaemon({ home: home(), env: { HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: url } });
    try {
      await until("the gateway warning", () => daemon.logs().includes("gateway check failed"));
      expect(daemon.logs()).toContain(`WARNING gateway check failed (Hermes gateway reachable at ${url}): nothing answers there`);
      expect(daemon.logs()).toContain("hermes gateway run");
      expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
    } finally {
      await daemon.stop();
    }
  });

  test("key refused: serve warns that the gateway does not accept HERMES_API_KEY", async () => {
    const daemon = await startTestDaemon({ home: home(), env: { HERMES_API_KEY: "wrong-key-0123456789", HERMES_API_URL: gateway.url } });
    try {
      await until("the key warning", () => daemon.logs().includes("gateway check failed"));
      expect(daemon.logs()).toContain("gateway check failed (gateway accepts HERMES_API_KEY): the gateway answered 401 Unauthorized");
      expect(daemon.logs()).toContain("API_SERVER_KEY");
    } finally {
      await daemon.stop();
    }
  });

  test("all well: no warning", async () => {
    const own = await startFakeGateway();
    const daemon = await startTestDaemon({ home: home(), env: { HERMES_API_KEY: FAKE_GATEWAY_KEY, HERMES_API_URL: own.url } });
    try {
      // The probe's last step is /v1/models; stopping flushes the log.
      await own.waitFor(() => own.requests.some((r) => r.path === "/v1/models"), 5000, "the probe");
    } finally {
      await daemon.stop();
      await own.stop();
    }
    expect(daemon.logs()).toContain("hermes-mcp listening");
    expect(daemon.logs()).not.toContain("gateway check failed");
  });
});
