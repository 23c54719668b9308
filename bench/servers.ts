// Processes the benchmarks measure: the compiled hermes-mcp binary, the bare Bun.serve floors (one with the runtime features serve uses), the SDK's Node + Express peer.
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { BUILD_FLAGS } from "../scripts/build-flags.ts";
import { alignElfFile } from "../scripts/elf-align.ts";
import { QUIET_MS } from "../src/idle-collector.ts";
import { freePort } from "../tests/support/daemon.ts";

export const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

export const rssMiB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

/** RSS split into anonymous memory (heaps, JIT code, SQLite cache) and file-backed pages (the binary's own code), in MiB. */
export function rssSplit(pid: number): { anonymous: number; fileBacked: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const mib = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { anonymous: mib("RssAnon"), fileBacked: mib("RssFile") };
}

/** rssSplit as the notes print it. */
export function rssParts(pid: number): string {
  const { anonymous, fileBacked } = rssSplit(pid);
  return `anonymous ${anonymous.toFixed(1)} MiB + file-backed ${fileBacked.toFixed(1)} MiB`;
}

/** Whether this system shows a process's CPU time and page faults in /proc (Linux); elsewhere the lines built on them are left out. */
export const PROC_READABLE = existsSync("/proc/self/stat");

/**
 * What the whole process (every thread, those that ended included) has cost so far, from /proc/<pid>/stat: CPU time,
 * user and kernel apart, in ms of clock ticks of 10 ms (USER_HZ is 100 on Linux) — fine over a load run or summed over
 * starts, too coarse for one idle second — and page faults, minor (memory mapped on first touch) and major (read from
 * disk). Counts survive execve: a relaunched process's include its first image's.
 */
export function processStat(pid: number): { userMs: number; systemMs: number; minorFaults: number; majorFaults: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The fields after the command name (which may hold spaces), from the state on: minflt is the 8th, majflt the 10th,
  // utime and stime the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return {
    userMs: Number(fields[11]) * 10,
    systemMs: Number(fields[12]) * 10,
    minorFaults: Number(fields[7]),
    majorFaults: Number(fields[9]),
  };
}

/**
 * Each thread still alive, by id: its voluntary context switches (sleeps the kernel had to end) and its CPU time in ns
 * (schedstat: exact where stat counts 10 ms ticks). A thread that ends between the listing and its read is left out.
 */
function threadStats(pid: number): Map<string, { switches: number; cpuNs: number }> {
  const threads = new Map<string, { switches: number; cpuNs: number }>();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${task}/status`, "utf8");
      threads.set(task, {
        switches: Number(/\nvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0),
        cpuNs: Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0] ?? 0),
      });
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return threads;
}

/** CPU time of the process's threads still alive, in ns, summed (threadStats). */
export function threadsCpuNs(pid: number): number {
  let ns = 0;
  for (const { cpuNs } of threadStats(pid).values()) ns += cpuNs;
  return ns;
}

/**
 * What an idle process costs the machine, over `ms`: wake-ups (voluntary context switches of all its threads: each is
 * a sleep the kernel had to end) and CPU time, both per second. CPU comes from each thread's schedstat, in nanoseconds
 * (stat's 10 ms ticks would read an idle process as 0.0 whether it used nothing or 1.9 ms a second). Counted per thread:
 * a thread that ends in the window takes its counts with it (a sum over all threads then goes down, even below zero),
 * so only threads still there at the end count, from zero if they started in the window.
 */
export async function idleActivity(pid: number, ms = 5000): Promise<{ wakeups: number; cpuMs: number }> {
  const before = threadStats(pid);
  await Bun.sleep(ms);
  let switches = 0;
  let cpuNs = 0;
  for (const [task, now] of threadStats(pid)) {
    const then = before.get(task);
    switches += now.switches - (then?.switches ?? 0);
    cpuNs += now.cpuNs - (then?.cpuNs ?? 0);
  }
  const seconds = ms / 1000;
  return { wakeups: switches / seconds, cpuMs: cpuNs / 1e6 / seconds };
}

export interface Running {
  url: string;
  pid: number;
  stop(): Promise<void>;
  /** kill -9: no shutdown, no flush (startBinary's; the baselines' is their stop, a SIGTERM). */
  crash(): Promise<void>;
}

/** What a start cost the machine, read at the first /healthz 200: CPU (exact, and in ticks for the kernel's part), page faults. */
export interface StartCost {
  /** CPU of the threads alive at that moment, the relaunched main thread's first image included (threadsCpuNs). */
  cpuMs: number;
  /** The whole process's ticks (processStat), threads that ended included: where the kernel's share comes from. */
  userMs: number;
  systemMs: number;
  /** Minor and major page faults, both images of a relaunch. */
  faults: number;
}

/**
 * Starts the compiled binary on a free loopback port; resolves at its first 200 from /healthz, with the time that took
 * and, where /proc shows them, what the start cost (null elsewhere).
 */
export async function startBinary(
  binary: string,
  home: string,
  env: Record<string, string> = {},
  logFile?: string,
): Promise<Running & { startMs: number; startCost: StartCost | null }> {
  const port = freePort();
  const started = performance.now();
  const proc = Bun.spawn([binary, "serve"], {
    env: {
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local", "share"),
      BIND_PORT: String(port),
      PATH: process.env.PATH ?? "",
      LOG_LEVEL: "WARNING",
      ...env,
    },
    stdout: "ignore",
    stderr: logFile ? Bun.file(logFile) : "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`hermes-mcp exited with ${proc.exitCode} before answering /healthz`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      await Bun.sleep(1);
    }
  }
  const startMs = performance.now() - started;
  const startCost = PROC_READABLE ? startCostOf(proc.pid) : null;
  return {
    url,
    pid: proc.pid,
    startMs,
    startCost,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
    async crash() {
      proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}

function startCostOf(pid: number): StartCost {
  const cpuMs = threadsCpuNs(pid) / 1e6;
  const { userMs, systemMs, minorFaults, majorFaults } = processStat(pid);
  return { cpuMs, userMs, systemMs, faults: minorFaults + majorFaults };
}

/** The floor: a bare Bun.serve that checks the bearer token, reads the body and answers `answer` (the same bytes we send). */
export async function startFloor(token: string, answer: string, contentType: string): Promise<Running> {
  const code = `
    const expected = ${JSON.stringify(`Bearer ${token}`)};
    const answer = ${JSON.stringify(answer)};
    const headers = { "content-type": ${JSON.stringify(contentType)} };
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, async fetch(request) {
      if (request.headers.get("authorization") !== expected) return new Response("unauthorized", { status: 401 });
      await request.text();
      return new Response(answer, { headers });
    } });
    console.log("LISTENING " + server.port);`;
  return spawnListening([process.execPath, "-e", code], {});
}

/**
 * A bare Bun.serve that holds every request whose body says "pending" for a minute: the runtime's own memory floor.
 * Once quiet for QUIET_MS it collects as the daemon does (a full collection, then JavaScriptCore's shrink), so what it
 * keeps after a load is what the runtime itself keeps.
 */
export async function startHoldingFloor(): Promise<Running> {
  const code = `
    let quiet = null;
    const touch = () => {
      if (quiet) clearTimeout(quiet);
      quiet = setTimeout(() => (server.pendingRequests > 0 ? touch() : (Bun.gc(true), Bun.shrink())), ${QUIET_MS});
    };
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 120, async fetch(request) {
      touch();
      if ((await request.text()).includes("pending")) await Bun.sleep(60_000);
      return new Response("event: message\\ndata: {}\\n\\n", { headers: { "content-type": "text/event-stream" } });
    } });
    console.log("LISTENING " + server.port);`;
  return spawnListening([process.execPath, "-e", code], {});
}

/**
 * A copy of `binary` in `dir`, made as install.sh's last step makes it (`cp`): the page cache then holds it as in a
 * user's fresh install (on Linux 6.x, `cp` writes 64 KiB folios), whatever wrote it first. The path of the copy.
 */
export function installCopy(binary: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const target = join(dir, basename(binary));
  const copy = Bun.spawnSync(["cp", binary, target], { stderr: "pipe" });
  if (copy.exitCode !== 0) throw new Error(`cp ${binary} ${target} failed: ${copy.stderr.toString().trim()}`);
  return target;
}

/** Compiles bench/baselines/features-floor.ts as the release build does (its flags, its segment alignment) into `dir`: the idle-RSS floor, started with startBinary. */
export async function buildFeaturesFloor(dir: string): Promise<string> {
  const binary = join(dir, "features-floor");
  const source = join(import.meta.dir, "baselines", "features-floor.ts");
  const build = Bun.spawn([process.execPath, "build", ...BUILD_FLAGS, source, "--outfile", binary], { stdout: "ignore", stderr: "pipe" });
  const [code, stderr] = await Promise.all([build.exited, new Response(build.stderr).text()]);
  if (code !== 0) throw new Error(`building ${source} failed:\n${stderr}`);
  // As scripts/release.ts does for every Linux binary.
  await alignElfFile(binary);
  return binary;
}

/** The Node peer: the MCP SDK's canonical stateless Node + Express server answering the same structured result. */
export async function startExpressPeer(answer: unknown): Promise<Running | null> {
  const node = Bun.which("node");
  if (!node) return null;
  return spawnListening([node, join(import.meta.dir, "baselines", "express-server.mjs")], { BENCH_ANSWER: JSON.stringify(answer) });
}

/** A bare Bun.serve forwarding each POST to the gateway with fetch (bench/baselines/proxy-server.ts). */
export async function startProxyFloor(gatewayUrl: string, gatewayKey: string): Promise<Running> {
  return spawnListening([process.execPath, join(import.meta.dir, "baselines", "proxy-server.ts")], {
    BENCH_GATEWAY_URL: gatewayUrl,
    BENCH_GATEWAY_KEY: gatewayKey,
  });
}

/**
 * The same bare proxy on one kept-alive raw socket instead of fetch (bench/baselines/socket-proxy-server.ts); given
 * `storePath`, it also stores each call in that database as hermes-mcp stores a sync call.
 */
export async function startSocketProxyFloor(gatewayUrl: string, gatewayKey: string, storePath?: string): Promise<Running> {
  return spawnListening([process.execPath, join(import.meta.dir, "baselines", "socket-proxy-server.ts")], {
    BENCH_GATEWAY_URL: gatewayUrl,
    BENCH_GATEWAY_KEY: gatewayKey,
    ...(storePath ? { BENCH_STORE_PATH: storePath } : {}),
  });
}

async function spawnListening(cmd: string[], env: Record<string, string>): Promise<Running> {
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "inherit", env: { ...process.env, ...env } });
  const reader = proc.stdout.getReader();
  let text = "";
  let port = 0;
  while (!port) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${cmd[0]} exited before listening: ${text}`);
    text += new TextDecoder().decode(value);
    port = Number(/LISTENING (\d+)/.exec(text)?.[1] ?? 0);
  }
  reader.releaseLock();
  const stop = async (): Promise<void> => {
    proc.kill();
    await proc.exited;
  };
  return { url: `http://127.0.0.1:${port}`, pid: proc.pid, stop, crash: stop };
}
