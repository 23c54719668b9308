// The soak's load, in its own process (so its connections close when it exits): virtual users mixing every tool, long-polls, cancels and OAuth.
import type { Client } from "@modelcontextprotocol/client";
import { connectClient, structuredOf, textOf } from "../tests/support/mcp-client.ts";
import { createTask, taskResult, tasksClient } from "../tests/support/tasks-client.ts";
import { Latencies } from "./support/measure.ts";
import { discover, refresh, revoke, staticFlow, tokenStatus } from "./support/oauth.ts";
import { rngFor, type Rng } from "./support/rng.ts";

export interface SoakLoadSpec {
  url: string;
  /** Personal tokens shared by the ordinary users. */
  shared: string[];
  /** One personal token per resetting user (hermes_reset clears a whole principal's jobs). */
  resetters: string[];
  staticSecret: string;
  clients: number;
  seconds: number;
  seed: number;
}

export interface SoakLoadResult {
  operations: number;
  latencies: Record<string, number[]>;
  errors: Record<string, { count: number; examples: string[] }>;
}

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

class Recorder {
  readonly latencies = new Latencies();
  readonly errors: SoakLoadResult["errors"] = {};
  operations = 0;

  /** Times one operation; any exception is an unexpected error of that kind. */
  async op<T>(name: string, work: () => Promise<T>): Promise<T | undefined> {
    const started = performance.now();
    try {
      const value = await work();
      this.latencies.add(name, performance.now() - started);
      this.operations++;
      return value;
    } catch (error) {
      const entry = (this.errors[name] ??= { count: 0, examples: [] });
      entry.count++;
      if (entry.examples.length < 3) entry.examples.push(error instanceof Error ? error.message : String(error));
      return undefined;
    }
  }
}

function expectThat(condition: boolean, what: string, got: unknown): void {
  if (!condition) throw new Error(`${what}; got ${JSON.stringify(got).slice(0, 300)}`);
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} answered isError: ${textOf(result).slice(0, 300)}`);
  return structuredOf(result);
}

/** Long-polls hermes_check until the job ends (bounded), returning its last view. */
async function waitEnd(client: Client, jobId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 30; i++) {
    const view = await call(client, "hermes_check", { job_id: jobId, wait_seconds: 2 });
    if (TERMINAL.has(view.status as string)) return view;
  }
  throw new Error(`job ${jobId} did not end within 30 long-polls`);
}

type User = (r: Rng, n: number) => Promise<void>;

function users(spec: SoakLoadSpec, rec: Recorder, deadline: number): Promise<void>[] {
  const staticClient = { url: spec.url, secret: spec.staticSecret };
  const tag = (i: number, n: number): string => `soak-${i}-${n}`;

  const sync =
    (client: Client, i: number): User =>
    async (r, n) => {
      const prompt = `${tag(i, n)} [[delay:${r.int(0, 300)}]]`;
      await rec.op("hermes_ask sync", async () => {
        const out = await call(client, "hermes_ask", { prompt, session_id: r.chance(0.3) ? `label-${i % 7}` : undefined });
        expectThat(out.status === "completed" && String(out.answer).includes(tag(i, n)), "sync ask should complete with the echo", out);
      });
    };

  const poll =
    (client: Client, i: number): User =>
    async (r, n) => {
      const id = await rec.op("hermes_ask async", async () => {
        const out = await call(client, "hermes_ask", { prompt: `${tag(i, n)} [[delay:${r.int(100, 3000)}]]`, async_mode: true });
        expectThat(out.status === "pending" && typeof out.job_id === "string", "async ask should answer pending with a job_id", out);
        return out.job_id as string;
      });
      if (!id) return;
      await rec.op("hermes_check long-poll", async () => {
        const view = await waitEnd(client, id);
        expectThat(view.status === "completed" && String(view.result).includes(tag(i, n)), "polled job should complete", view);
      });
    };

  const cancel =
    (client: Client, i: number): User =>
    async (r, n) => {
      const id = await rec.op("hermes_ask async", async () => {
        const out = await call(client, "hermes_ask", { prompt: `${tag(i, n)} [[delay:60000]]`, async_mode: true });
        return out.job_id as string;
      });
      if (!id) return;
      await Bun.sleep(r.int(0, 400));
      await rec.op("hermes_cancel", async () => {
        const view = await call(client, "hermes_cancel", { job_id: id });
        expectThat(view.status === "cancelled", "cancel of a 60 s job should answer cancelled", view);
        const again = await call(client, "hermes_check", { job_id: id });
        expectThat(again.status === "cancelled", "a cancelled job should stay cancelled", again);
      });
    };

  const reset =
    (client: Client, i: number): User =>
    async (r, n) => {
      const ids: string[] = [];
      for (let k = 0; k < r.int(1, 4); k++) {
        const id = await rec.op("hermes_ask async", async () => {
          const out = await call(client, "hermes_ask", { prompt: `${tag(i, n)}-${k} [[delay:${r.int(0, 2000)}]]`, async_mode: true });
          return out.job_id as string;
        });
        if (id) ids.push(id);
      }
      await Bun.sleep(r.int(0, 1000));
      await rec.op("hermes_reset", async () => {
        const out = await call(client, "hermes_reset", {});
        expectThat(out.cleared === ids.length, `reset should clear this user's ${ids.length} jobs`, out);
        const gone = await call(client, "hermes_check", { job_id: ids[0] ?? "none" });
        expectThat(gone.status === "unknown", "a cleared job should be unknown", gone);
      });
    };

  const tasks = (i: number, token: string): User => {
    let client: Awaited<ReturnType<typeof tasksClient>> | null = null;
    return async (r, n) => {
      client ??= (await rec.op("connect", () => tasksClient(spec.url, token))) ?? null;
      if (!client) return;
      const c = client;
      await rec.op("task create+result", async () => {
        const created = await createTask(c, { prompt: `${tag(i, n)} [[delay:${r.int(0, 1500)}]]` }, { ttl: 120_000 });
        const result = await taskResult(c, created.task.taskId);
        expectThat(!result.isError && textOf(result).includes(tag(i, n)), "tasks/result should carry the answer", result);
      });
    };
  };

  const oauth =
    (i: number): User =>
    async (r, n) => {
      await rec.op("discovery", () => discover(spec.url));
      const first = await rec.op("oauth code flow", () => staticFlow(staticClient));
      if (!first) return;
      const client = await rec.op("connect", () => connectClient(spec.url, first.access_token, n % 2 ? "modern" : "legacy"));
      if (!client) return;
      await rec.op("tools/list", async () => {
        const { tools } = await client.listTools();
        expectThat(
          tools.some((t) => t.name === "hermes_ask"),
          "tools/list should list hermes_ask",
          tools.length,
        );
      });
      await sync(client, i)(r, n);
      await client.close();
      const second = await rec.op("oauth refresh", async () => {
        const out = await refresh(staticClient, first.refresh_token);
        expectThat("access_token" in out, "refresh should give a new pair", out);
        return out as { access_token: string; refresh_token: string };
      });
      if (!second) return;
      await rec.op("oauth revoke", async () => {
        expectThat((await tokenStatus(spec.url, second.access_token)) === 200, "the refreshed access token should work", null);
        expectThat((await revoke(staticClient, second.refresh_token)) === 200, "revoke should answer 200", null);
        const after = await refresh(staticClient, second.refresh_token);
        expectThat(
          "status" in after && after.status === 400 && after.error === "invalid_grant",
          "a revoked refresh token should be refused",
          after,
        );
        expectThat((await tokenStatus(spec.url, second.access_token)) === 401, "the revoked grant's access token should be refused", null);
      });
    };

  return Array.from({ length: spec.clients }, async (_, i) => {
    const r = rngFor(spec.seed, i);
    const era = i % 2 ? "modern" : "legacy";
    let user: User;
    let client: Client | null = null;
    const connect = async (token: string): Promise<Client | undefined> => {
      client = (await rec.op("connect", () => connectClient(spec.url, token, era))) ?? null;
      return client ?? undefined;
    };
    const token = spec.shared[i % spec.shared.length] as string;
    if (i < spec.resetters.length) {
      const c = await connect(spec.resetters[i] as string);
      if (!c) return;
      user = reset(c, i);
    } else {
      const role = i % 20;
      if (role === 19) user = tasks(i, token);
      else if (role >= 16) user = oauth(i);
      else {
        const c = await connect(token);
        if (!c) return;
        user = role < 8 ? sync(c, i) : role < 14 ? poll(c, i) : cancel(c, i);
      }
    }
    for (let n = 0; Date.now() < deadline; n++) {
      await user(r, n);
      await Bun.sleep(r.int(0, 50));
    }
    await (client as Client | null)?.close();
  });
}

if (import.meta.main) {
  const spec = JSON.parse(process.env.STRESS_SOAK_SPEC ?? "") as SoakLoadSpec;
  const rec = new Recorder();
  await Promise.all(users(spec, rec, Date.now() + spec.seconds * 1000));
  const result: SoakLoadResult = { operations: rec.operations, latencies: rec.latencies.toJSON(), errors: rec.errors };
  await Bun.write(process.env.STRESS_SOAK_OUT ?? "/dev/stdout", JSON.stringify(result));
  process.exit(0);
}
