// A database that refuses writes while the daemon runs (here another program's lock; a full disk reads the same): the
// answer Hermes gave still reaches its caller, the job's ending reaches the file once it is free, and the owner is told.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { askOverHttp, callOverHttp } from "../support/mcp-client.ts";
import { createToken, databaseOf, runCli, startTestDaemon, tempHomes, type TestDaemon } from "../support/daemon.ts";
import { fakeGatewayForFile } from "../support/gateway-per-file.ts";
import { until } from "../support/until.ts";

const fake = fakeGatewayForFile();
const settings = fake.env;
const home = tempHomes();

interface Beside {
  h: string;
  token: string;
  daemon: TestDaemon;
  /** Another program's connection to the daemon's database, to take its lock with. */
  other: Database;
}

/** A daemon on a fresh home with a token, beside another program's connection to its database; both closed after. */
async function besideAnotherProgram(
  tokenName: string,
  body: (beside: Beside) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const h = home();
  const token = await createToken(h, tokenName, settings());
  const daemon = await startTestDaemon({ home: h, env: { ...settings(), ...env } });
  const other = new Database(databaseOf(h));
  let exit: number;
  try {
    await body({ h, token, daemon, other });
  } finally {
    other.close();
    exit = await daemon.stop();
  }
  // After the body: a failure inside it is the one reported, not this.
  expect(exit).toBe(0);
}

test(
  "a locked database: the caller gets its answer, the ending is written once the lock goes, the log says why",
  () =>
    besideAnotherProgram("locked", async ({ h, token, daemon, other }) => {
      // The token's first use is recorded now, not while the lock is held.
      expect((await askOverHttp(daemon.url, token, "warm")).text).toContain('\\"status\\":\\"completed\\"');
      const before = fake.gateway.chats.length;
      const asking = askOverHttp(daemon.url, token, "locked out [[delay:800]]");
      await until("the chat at the gateway", () => fake.gateway.chats.length > before, 5000);
      // The job's row is committed within a millisecond of its request leaving; then another program takes the lock.
      await Bun.sleep(200);
      other.exec("BEGIN IMMEDIATE");
      const answer = await asking;
      expect(answer.text).toContain('\\"status\\":\\"completed\\"');
      expect(answer.text).toContain("echo: locked out");
      // Written before the answer, but this process may read the answer before the pipe.
      const refused = `cannot write a job's ending (its answer is kept in memory meanwhile): another program kept ${databaseOf(h)} locked for more than 5 s; hermes-mcp keeps running and writes again once it can`;
      await until(refused, () => daemon.logs().includes(refused), 2000);
      expect(daemon.logs()).toContain(refused);
      const statusInFile = (): string | undefined =>
        other.query<{ status: string }, []>("SELECT status FROM jobs ORDER BY created_at DESC LIMIT 1").get()?.status;
      expect(statusInFile()).toBe("running");
      other.exec("ROLLBACK");
      // Retried 1 s after the failure, then 2 s, 4 s…
      await until("the held ending in the file", () => statusInFile() === "completed", 10_000);
      // (INFO lines are written in batches.)
      await until("the written line", () => daemon.logs().includes("job endings held in memory are written count=1"), 2000);
      // And the daemon goes on as before.
      expect((await askOverHttp(daemon.url, token, "after")).text).toContain("echo: after");
    }),
  30_000,
);

test(
  "a tool whose write the database refuses (hermes_reset) tells the caller why, naming no path; the owner's log has the path",
  () =>
    besideAnotherProgram("resetter", async ({ h, token, daemon, other }) => {
      expect((await askOverHttp(daemon.url, token, "warm")).text).toContain("echo: warm");
      other.exec("BEGIN IMMEDIATE");
      const reset = await callOverHttp(daemon.url, token, "hermes_reset", {});
      other.exec("ROLLBACK");
      expect(reset.status).toBe(200);
      expect(reset.text).toContain("hermes-mcp cannot write its database right now: its database is locked by another program.");
      expect(reset.text).toContain('"isError":true');
      expect(reset.text).not.toContain(databaseOf(h));
      expect(reset.text).not.toContain("internal error");
      // The daemon wrote the line before answering, but this process may read the answer before the pipe.
      const line = `cannot answer a hermes_reset call: another program kept ${databaseOf(h)} locked`;
      await until(line, () => daemon.logs().includes(line), 2000);
    }),
  20_000,
);

test("a CLI command whose write the database refuses says so, what to do, and that nothing changed", async () => {
  const h = home();
  await createToken(h, "first", settings());
  const other = new Database(databaseOf(h));
  try {
    other.exec("BEGIN IMMEDIATE");
    const refused = await runCli(["token", "create", "--name", "second"], { home: h, env: settings() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `another program kept ${databaseOf(h)} locked for more than 5 s, so nothing was changed — close what holds it (an open sqlite3 shell, or a tool writing the file), then run the command again`,
    );
    expect(refused.stdout).toBe("");
    other.exec("ROLLBACK");
    const listed = await runCli(["token", "list"], { home: h, env: settings() });
    expect(listed.stdout).toContain("first");
    expect(listed.stdout).not.toContain("second");
  } finally {
    other.close();
  }
}, 20_000);

/** The job id an async hermes_ask answered with. */
function jobIdOf(answer: { text: string }): string {
  const id = /\\"job_id\\":\\"([^\\"]+)\\"/.exec(answer.text)?.[1];
  if (!id) throw new Error(`no job id in ${answer.text}`);
  return id;
}

test(
  "a lock held for long: only the first write waits it out, the next ones are refused at once until it goes, then short locks are waited out again",
  () =>
    besideAnotherProgram(
      "queue",
      async ({ h, token, daemon, other }) => {
        expect((await askOverHttp(daemon.url, token, "warm")).text).toContain("echo: warm");
        const submit = async (prompt: string) => jobIdOf(await callOverHttp(daemon.url, token, "hermes_ask", { prompt, async_mode: true }));
        const check = async (id: string) => (await callOverHttp(daemon.url, token, "hermes_check", { job_id: id })).text;
        // One job at a time: the first runs at the gateway, the other two wait in line behind it.
        const first = await submit("first [[delay:1000]]");
        const queued = [await submit("second"), await submit("third")];
        other.exec("BEGIN IMMEDIATE");
        const locked = performance.now();
        // The first job's ending waits the whole 5 s for the lock and is held; the queued jobs' starts then fail at once.
        // (Before, each start and each ending waited 5 s of its own, one after another: 25 s in which nothing answered.)
        for (const id of queued) await until(`${id} refused`, async () => (await check(id)).includes('\\"status\\":\\"failed\\"'), 12_000);
        expect(performance.now() - locked).toBeLessThan(10_000);
        expect(await check(queued[1] as string)).toContain(
          "its database is locked by another program. Try again once its owner has fixed that. The job was not started.",
        );
        expect(await check(first)).toContain("echo: first");
        // A new job is refused at once too, while the lock lasts.
        const refusedAt = performance.now();
        const refused = await callOverHttp(daemon.url, token, "hermes_ask", { prompt: "during", async_mode: true });
        expect(refused.text).toContain("its database is locked by another program");
        expect(performance.now() - refusedAt).toBeLessThan(2000);
        other.exec("ROLLBACK");
        const gone = `the lock another program held on ${databaseOf(h)} is gone; hermes-mcp writes its database again`;
        await until(gone, () => daemon.logs().includes(gone), 5000);
        // What was held meanwhile is in the file.
        const statusOf = (id: string) => other.query<{ status: string }, [string]>("SELECT status FROM jobs WHERE id = ?").get(id)?.status;
        await until(
          "the held endings in the file",
          () => statusOf(first) === "completed" && queued.every((id) => statusOf(id) === "failed"),
          5000,
        );
        // Writes wait out a short lock again (a CLI's commit) instead of failing.
        other.exec("BEGIN IMMEDIATE");
        const release = setTimeout(() => other.exec("ROLLBACK"), 600);
        try {
          expect(await submit("after a short lock")).toBeString();
        } finally {
          clearTimeout(release);
          if (other.inTransaction) other.exec("ROLLBACK");
        }
      },
      { HERMES_MCP_MAX_CONCURRENT_JOBS: "1" },
    ),
  45_000,
);
