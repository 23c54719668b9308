// Soak: N concurrent clients for S seconds mixing every tool, long-polls, cancels and OAuth; zero unexpected errors, daemon RSS and fds flat after it.
// Usage: bun run soak [--clients 200] [--seconds 120] [--seed N]
import { join } from "node:path";
import type { SoakLoadResult, SoakLoadSpec } from "./soak-load.ts";
import { Latencies, mib, procStats, type ProcStats, rssLimit, rssTrend } from "./support/measure.ts";
import { freshSeed } from "./support/rng.ts";
import { finish, main, numberFlag, startStressWorld, suspiciousLogLines, Violations, type StressWorld } from "./support/run.ts";

/**
 * "Flat" RSS, against RSS_TOLERANCE (support/measure.ts): (1) no trend under load — rssTrend over the main load's
 * samples (every 2 s), judged once each quarter holds enough of them (a run of 32 s or more); (2) after the load (its
 * connections closed, its jobs ended) RSS is within it of the highest reading of the warm-up or the load's first half
 * (the heap keeps what the load needed; a leak keeps growing past it). A single "after vs warm" reading would judge GC
 * timing, not leaks. Open descriptors must stay within FD_TOLERANCE of the warmed-up count (gateway keep-alive sockets
 * come and go).
 */
export const FD_TOLERANCE = 4;

const clients = numberFlag("clients", 200);
const seconds = numberFlag("seconds", 120);
const seed = numberFlag("seed", freshSeed());
const warmupSeconds = Math.max(3, Math.min(15, Math.round(seconds / 8)));
console.log(`soak: ${clients} clients × ${seconds} s (warm-up ${warmupSeconds} s), seed ${seed}, loopback only`);

await main(async () => {
  const violations = new Violations();
  const world = await startStressWorld({
    personalTokens: 8,
    gateway: { maxConcurrentRuns: 10_000 },
    env: {
      HERMES_MCP_MAX_CONCURRENT_JOBS: "64",
      HERMES_MCP_MAX_QUEUED_JOBS: "10000",
      HERMES_MCP_MAX_STORED_JOBS: "1000000",
    },
  });
  const pid = world.daemon.proc.pid;
  const idle = procStats(pid);

  /** Runs the load in a child process for `secs`; returns what it measured (or records why it could not). */
  async function load(w: StressWorld, secs: number, users: number, loadSeed: number): Promise<SoakLoadResult | null> {
    const spec: SoakLoadSpec = {
      url: w.daemon.url,
      shared: w.tokens.slice(4),
      resetters: w.tokens.slice(0, 4),
      staticSecret: w.staticSecret,
      clients: users,
      seconds: secs,
      seed: loadSeed,
    };
    const out = join(w.home, `load-${loadSeed}.json`);
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "soak-load.ts")], {
      env: { ...process.env, STRESS_SOAK_SPEC: JSON.stringify(spec), STRESS_SOAK_OUT: out },
      stdout: "inherit",
      stderr: "inherit",
    });
    // The load stops by itself at its deadline; anything beyond a minute more is a hang.
    const killer = setTimeout(() => child.kill("SIGKILL"), (secs + 60) * 1000);
    const samples: ProcStats[] = [];
    const sampler = setInterval(() => {
      samples.push(procStats(pid));
      w.gateway.requests.length = 0; // the fake records every request; keep the orchestrator's memory flat too
    }, 2000);
    const code = await child.exited;
    clearTimeout(killer);
    clearInterval(sampler);
    peak = Math.max(peak, ...samples.map((s) => s.rssBytes));
    series.push(...samples.map((s) => s.rssBytes));
    peakFds = Math.max(peakFds, ...samples.map((s) => s.fds));
    if (code !== 0) {
      violations.add("load process failed or hung", `exit ${code}`);
      return null;
    }
    return (await Bun.file(out).json()) as SoakLoadResult;
  }

  /** Waits until no chat runs at the gateway and the daemon's descriptors stop changing (bounded), then measures. */
  async function settled(): Promise<ProcStats> {
    const deadline = Date.now() + 20_000;
    let last = procStats(pid);
    while (Date.now() < deadline) {
      await Bun.sleep(1000);
      const now = procStats(pid);
      if (world.gateway.active === 0 && now.fds === last.fds) return now;
      last = now;
    }
    return last;
  }

  let peak = idle.rssBytes;
  /** RSS every 2 s under load (warm-up, then the main load). */
  const series: number[] = [];
  let peakFds = idle.fds;
  const started = Date.now();
  await load(world, warmupSeconds, clients, seed ^ 0x5eed);
  const warm = await settled();
  const mainFrom = series.length;
  const result = await load(world, seconds, clients, seed);
  const after = await settled();
  const elapsed = (Date.now() - started) / 1000;

  if (world.daemon.proc.exitCode !== null) violations.add("daemon exited", `code ${world.daemon.proc.exitCode}`);
  const latencies = new Latencies();
  if (result) {
    latencies.merge(result.latencies);
    for (const [kind, e] of Object.entries(result.errors))
      for (let i = 0; i < e.count; i++) violations.add(`unexpected error in ${kind}`, e.examples[i] ?? "");
  }
  const underLoad = series.slice(mainFrom);
  const { early, late, judged: trendJudged, grows } = rssTrend(underLoad);
  if (grows)
    violations.add(
      "RSS grows under load",
      `median ${mib(late)} in the last quarter > ${mib(rssLimit(early))} allowed (first quarter ${mib(early)})`,
    );
  const highWater = Math.max(warm.rssBytes, ...underLoad.slice(0, Math.ceil(underLoad.length / 2)));
  const afterLimit = rssLimit(highWater);
  if (after.rssBytes > afterLimit)
    violations.add(
      "RSS not flat after the load",
      `${mib(after.rssBytes)} > ${mib(afterLimit)} allowed (first-half high ${mib(highWater)})`,
    );
  if (after.fds > warm.fds + FD_TOLERANCE)
    violations.add("open descriptors not flat", `${after.fds} after > ${warm.fds} warm + ${FD_TOLERANCE}`);
  for (const line of suspiciousLogLines(world.logs())) violations.add("suspicious daemon log line", line);

  const summary = [
    `soak: ${clients} clients, ${seconds} s load (+${warmupSeconds} s warm-up), ${elapsed.toFixed(0)} s in all, seed ${seed}`,
    `operations: ${result?.operations ?? 0} completed and checked (${((result?.operations ?? 0) / seconds).toFixed(0)}/s)`,
    latencies.table(),
    `daemon RSS: idle ${mib(idle.rssBytes)}, warm ${mib(warm.rssBytes)}, peak ${mib(peak)}, after ${mib(after.rssBytes)} (limit ${mib(afterLimit)}); under load median ${mib(early)} first quarter, ${mib(late)} last quarter${trendJudged ? "" : " (too short a run to judge a trend; the return after the load is still judged)"}`,
    `daemon RSS under load, every 10 s: ${underLoad
      .filter((_, i) => i % 5 === 0)
      .map((b) => (b / 1048576).toFixed(0))
      .join(" ")} MiB`,
    `daemon fds: idle ${idle.fds}, warm ${warm.fds}, peak ${peakFds}, after ${after.fds} (limit ${warm.fds + FD_TOLERANCE})`,
  ].join("\n");
  await finish(summary, violations, {
    script: "soak",
    seed,
    clients,
    seconds,
    operations: result?.operations ?? 0,
    rss: { idle: idle.rssBytes, warm: warm.rssBytes, peak, after: after.rssBytes, early, late, underLoad },
    fds: { idle: idle.fds, warm: warm.fds, peak: peakFds, after: after.fds },
  });
});
