// Crash loop: R × (load, kill -9 at a random moment, restart); every acknowledged job answers, the database is intact, every issued token works.
// Usage: bun run crashloop [--rounds 20] [--seed N]
import { Database } from "bun:sqlite";
import { createToken } from "../tests/support/daemon.ts";
import { Latencies, mib, procStats } from "./support/measure.ts";
import { refresh, staticFlow, tokenStatus } from "./support/oauth.ts";
import { freshSeed, rngFor } from "./support/rng.ts";
import { callTool } from "./support/rpc.ts";
import { finish, main, numberFlag, startStressWorld, suspiciousLogLines, Violations } from "./support/run.ts";

const rounds = numberFlag("rounds", 20);
const seed = numberFlag("seed", freshSeed());
const WORKERS = 16;
console.log(`crashloop: ${rounds} rounds, ${WORKERS} workers, seed ${seed}, loopback only`);

/** What the daemon acknowledged: only these are owed an answer after a crash. */
interface JobEntry {
  token: string;
  round: number;
  /** The acknowledged status: completed (sync), pending (async, not yet ended), cancelled (hermes_cancel answered it). */
  acked: "completed" | "pending" | "cancelled";
}
interface Grant {
  access: string[];
  refresh: string;
  /** A refresh was sent but its answer lost in the crash: the server may have rotated, so it is not refreshed again. */
  uncertain: boolean;
}

await main(async () => {
  const violations = new Violations();
  const world = await startStressWorld({
    personalTokens: 2,
    gateway: { maxConcurrentRuns: 10_000 },
    env: { HERMES_MCP_MAX_CONCURRENT_JOBS: "16", HERMES_MCP_MAX_QUEUED_JOBS: "10000", HERMES_MCP_MAX_STORED_JOBS: "1000000" },
  });
  const jobs = new Map<string, JobEntry>();
  const grants: Grant[] = [];
  const personal = [...world.tokens];
  const latencies = new Latencies();
  const staticClient = () => ({ url: world.daemon.url, secret: world.staticSecret });
  let acknowledged = 0;
  let lost = 0;

  /** Runs one operation; a transport failure after the kill is a lost request (not owed anything), anything else a violation. */
  const attempt = async (name: string, alive: () => boolean, work: () => Promise<void>): Promise<void> => {
    const started = performance.now();
    try {
      await work();
      acknowledged++;
      latencies.add(name, performance.now() - started);
    } catch (error) {
      if (!alive()) lost++;
      else violations.add(`${name} failed while the daemon was up`, (error as Error).message);
    }
  };

  const integrity = (): string => {
    const db = new Database(world.dbPath, { readonly: true });
    try {
      db.exec("PRAGMA busy_timeout = 5000");
      return (db.query("PRAGMA integrity_check").all() as { integrity_check: string }[]).map((row) => row.integrity_check).join("; ");
    } finally {
      db.close();
    }
  };

  /** Every acknowledged job answers with a status its acknowledgement allows. */
  /** How the jobs read at the last check: completed, cancelled, failed (restart)… */
  const endings = new Map<string, number>();
  const checkJobs = async (which: (entry: JobEntry) => boolean): Promise<number> => {
    let checked = 0;
    endings.clear();
    for (const [id, entry] of jobs) {
      if (!which(entry)) continue;
      checked++;
      const view = (await callTool(world.daemon.url, entry.token, "hermes_check", { job_id: id })).data;
      const status = view.status as string;
      const ending = status === "failed" ? `failed (${String(view.end_reason)})` : status;
      endings.set(ending, (endings.get(ending) ?? 0) + 1);
      const fine =
        entry.acked === "completed"
          ? status === "completed"
          : entry.acked === "cancelled"
            ? status === "cancelled"
            : status === "completed" || status === "cancelled" || (status === "failed" && view.end_reason === "restart");
      if (!fine)
        violations.add(
          "acknowledged job answers wrongly",
          `${id} (round ${entry.round}, acked ${entry.acked}): ${JSON.stringify(view).slice(0, 300)}`,
        );
    }
    return checked;
  };

  /** Every personal token and every OAuth access token of a live grant still opens /mcp. */
  const checkTokens = async (): Promise<number> => {
    const all = [...personal, ...grants.flatMap((g) => g.access)];
    for (const token of all) {
      const status = await tokenStatus(world.daemon.url, token);
      if (status !== 200) violations.add("issued token refused", `${token.slice(0, 12)}… answered ${status}`);
    }
    return all.length;
  };

  const rssAtStart = procStats(world.daemon.proc.pid).rssBytes;
  for (let round = 1; round <= rounds; round++) {
    const r = rngFor(seed, round);
    let up = true;
    const alive = () => up;
    const killAt = r.int(300, 2500);
    const ownToken = personal[round % personal.length] as string;
    const active: string[] = [];
    const worker = async (w: number): Promise<void> => {
      const wr = rngFor(seed, round * 1000 + w);
      while (up) {
        const url = world.daemon.url;
        const dice = wr.next();
        if (dice < 0.35) {
          await attempt("hermes_ask async", alive, async () => {
            const out = await callTool(url, ownToken, "hermes_ask", {
              prompt: `crash-${round}-${w} [[delay:${wr.int(0, 3000)}]]`,
              async_mode: true,
            });
            if (out.isError || typeof out.data.job_id !== "string") throw new Error(`async ask refused: ${out.text}`);
            jobs.set(out.data.job_id, { token: ownToken, round, acked: "pending" });
            active.push(out.data.job_id);
          });
        } else if (dice < 0.55) {
          await attempt("hermes_ask sync", alive, async () => {
            const out = await callTool(url, ownToken, "hermes_ask", { prompt: `crash-${round}-${w} [[delay:${wr.int(0, 200)}]]` });
            if (out.isError || out.data.status !== "completed") throw new Error(`sync ask did not complete: ${out.text}`);
            jobs.set(out.data.job_id as string, { token: ownToken, round, acked: "completed" });
          });
        } else if (dice < 0.7 && active.length > 0) {
          const id = active.splice(wr.int(0, active.length - 1), 1)[0] as string;
          await attempt("hermes_cancel", alive, async () => {
            const out = await callTool(url, ownToken, "hermes_cancel", { job_id: id });
            const entry = jobs.get(id);
            if (out.data.status === "cancelled" && entry) entry.acked = "cancelled";
            else if (out.data.status !== "completed") throw new Error(`cancel answered ${JSON.stringify(out.data)}`);
            else if (entry) entry.acked = "completed";
          });
        } else if (dice < 0.8) {
          await attempt("oauth code flow", alive, async () => {
            const pair = await staticFlow({ url, secret: world.staticSecret });
            grants.push({ access: [pair.access_token], refresh: pair.refresh_token, uncertain: false });
          });
        } else {
          const settled = grants.filter((g) => !g.uncertain);
          const grant = settled[wr.int(0, settled.length - 1)];
          if (!grant) {
            await Bun.sleep(1);
            continue;
          }
          grant.uncertain = true; // until the answer arrives
          await attempt("oauth refresh", alive, async () => {
            const out = await refresh({ url, secret: world.staticSecret }, grant.refresh);
            if (!("access_token" in out)) throw new Error(`refresh refused: ${JSON.stringify(out)}`);
            grant.access.push(out.access_token);
            grant.refresh = out.refresh_token;
            grant.uncertain = false;
          });
        }
      }
    };
    // A personal token minted by the CLI beside the running daemon, once a round.
    const minted = createToken(world.home, `crash-${round}`, world.env).then((token) => {
      personal.push(token);
    });
    const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    await Bun.sleep(killAt);
    up = false;
    await world.daemon.kill9();
    await load;
    await minted.catch((error) => violations.add("token create failed", (error as Error).message));
    await world.restart();
    const ok = integrity();
    if (ok !== "ok") violations.add("PRAGMA integrity_check", `round ${round}: ${ok}`);
    const checked = await checkJobs((entry) => entry.round === round);
    console.log(`round ${round}: killed at ${killAt} ms, ${checked} jobs acknowledged and answered, integrity ${ok}`);
  }

  // After the loop: everything ever acknowledged, every token, every grant's refresh token.
  const allJobs = await checkJobs(() => true);
  const finalEndings = [...endings].map(([ending, n]) => `${n} ${ending}`).join(", ");
  const tokensChecked = await checkTokens();
  for (const grant of grants) {
    const out = await refresh(staticClient(), grant.refresh);
    if (!("access_token" in out)) violations.add("refresh token refused after the loop", JSON.stringify(out));
  }
  const rssAtEnd = procStats(world.daemon.proc.pid).rssBytes;
  for (const line of suspiciousLogLines(world.logs())) violations.add("suspicious daemon log line", line);
  await world.daemon.stop();
  const finalIntegrity = integrity();
  if (finalIntegrity !== "ok") violations.add("PRAGMA integrity_check after the loop", finalIntegrity);

  const byStatus = new Map<string, number>();
  for (const entry of jobs.values()) byStatus.set(entry.acked, (byStatus.get(entry.acked) ?? 0) + 1);
  const summary = [
    `crashloop: ${rounds} rounds of load + kill -9 + restart, seed ${seed}`,
    `acknowledged requests ${acknowledged}, lost in crashes ${lost}`,
    `jobs acknowledged ${jobs.size} (as acknowledged: ${[...byStatus].map(([s, n]) => `${n} ${s === "pending" ? "async" : s}`).join(", ")}), all re-checked after the loop: ${allJobs} (${finalEndings})`,
    `tokens checked after the loop: ${tokensChecked} (${personal.length} personal, ${tokensChecked - personal.length} OAuth access), ${grants.length} refresh tokens exchanged`,
    `integrity_check: every round and after the loop ${finalIntegrity}`,
    `daemon RSS: first process at start ${mib(rssAtStart)}, last process after the checks ${mib(rssAtEnd)}`,
    latencies.table(),
  ].join("\n");
  await finish(summary, violations, {
    script: "crashloop",
    seed,
    rounds,
    jobs: jobs.size,
    tokens: tokensChecked,
    grants: grants.length,
    acknowledged,
    lost,
  });
});
