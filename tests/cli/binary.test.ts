// The single binary: `bun run build` gives a self-contained executable that serves; cross-compiling works as the README says.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isWellPlaced, loadSegments, SEGMENT_ALIGNMENT } from "../../scripts/elf-align.ts";
import { freePort, makeHome, removeHome } from "../support/daemon.ts";
import { SERVE_RUNTIME_OPTIONS } from "../../src/cli/relaunch.ts";

const ROOT = join(import.meta.dir, "..", "..");
const out = join(tmpdir(), `hermes-mcp-binary-${process.pid}`);
const home = makeHome();
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
  removeHome(home);
});

const crossBuild = (args: string[]) =>
  Bun.spawnSync([process.execPath, "build", "--compile", "--minify", ...args, join(ROOT, "src", "cli", "index.ts")], {
    cwd: ROOT,
    stderr: "pipe",
    stdout: "pipe",
  });

/** The first answer from /healthz on `port`, polled for up to 5 s while the binary starts (null: none came). */
async function firstHealth(port: number): Promise<Response | null> {
  for (let i = 0; i < 200; i++) {
    const health = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
    if (health) return health;
    await Bun.sleep(25);
  }
  return null;
}

describe("the compiled binary", () => {
  test("builds, reports its version, and serves /healthz and /mcp without Bun or node_modules around it", async () => {
    // Exactly the README's `bun run build`.
    const result = Bun.spawnSync([process.execPath, "run", "build"], { cwd: ROOT, stderr: "pipe", stdout: "pipe" });
    const binary = join(ROOT, "dist", "hermes-mcp");
    expect(result.exitCode, result.stderr.toString()).toBe(0);
    // Linux: every loadable segment on the kernel's fault-around grid and off the 2 MiB one (scripts/elf-align.ts; the
    // first holds the ELF header and cannot move), and the binary still runs.
    if (process.platform === "linux") {
      const segments = loadSegments(new Uint8Array(await Bun.file(binary).arrayBuffer())) ?? [];
      expect(segments.length).toBeGreaterThan(1);
      expect(segments.map((s) => (s.vaddr - s.offset) % SEGMENT_ALIGNMENT)).toEqual(segments.map(() => 0));
      expect(segments.slice(1).every(isWellPlaced)).toBe(true);
    }
    const version = Bun.spawnSync([binary, "--version"], { cwd: home, env: { HOME: home, PATH: "/usr/bin:/bin" } });
    // `bun run build` is a release build for this machine: the version, then the commit and target it was built for.
    expect(version.stdout.toString().trim()).toMatch(
      /^\d+\.\d+\.\d+ \(commit [0-9a-f]{7,}(-dirty)?, (linux|darwin)-(x64|arm64)(-musl)?\)$/,
    );
    // Built here, under `bun test` (NODE_ENV=test in the build's environment), the CLI still says what it did: the
    // build pins NODE_ENV, which `bun build` would otherwise inline from the shell (and consola then drops info lines).
    const empty = Bun.spawnSync([binary, "token", "list"], { cwd: home, env: { HOME: home, PATH: "/usr/bin:/bin" }, stderr: "pipe" });
    expect({ code: empty.exitCode, stderr: empty.stderr.toString() }).toEqual({
      code: 0,
      stderr: expect.stringContaining("No personal access tokens"),
    });

    const port = freePort();
    const proc = Bun.spawn([binary, "serve"], {
      cwd: home,
      env: { HOME: home, BIND_PORT: String(port), PATH: "/usr/bin:/bin" },
      stdout: "ignore",
      stderr: "pipe",
    });
    try {
      expect((await firstHealth(port))?.status).toBe(200);
      const unauthorized = await fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST" });
      expect(unauthorized.status).toBe(401);
      // The compiled serve re-executed itself (same PID) with its JavaScriptCore options (src/cli/relaunch.ts).
      if (process.platform === "linux")
        expect(readFileSync(`/proc/${proc.pid}/environ`, "utf8").split("\0")).toEqual(
          expect.arrayContaining(Object.entries(SERVE_RUNTIME_OPTIONS).map(([name, value]) => `${name}=${value}`)),
        );
    } finally {
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    }
  });

  // After the build above. A profiler's suspend signal pending at a relaunch's execve killed the new image ("Power
  // failure") every time at this interval: under the profiler, serve runs as started (src/cli/relaunch.ts).
  test.if(process.platform === "linux")(
    "serves under Bun's CPU profiler at a fine interval, and writes the profile when stopped",
    async () => {
      const binary = join(ROOT, "dist", "hermes-mcp");
      const profiles = join(out, "profiles");
      const port = freePort();
      const proc = Bun.spawn([binary, "serve"], {
        cwd: home,
        env: {
          HOME: home,
          BIND_PORT: String(port),
          PATH: "/usr/bin:/bin",
          BUN_OPTIONS: `--cpu-prof --cpu-prof-dir=${profiles} --cpu-prof-interval=100`,
        },
        stdout: "ignore",
        stderr: "pipe",
      });
      const stderr = new Response(proc.stderr).text();
      try {
        expect((await firstHealth(port))?.status).toBe(200);
      } finally {
        proc.kill("SIGTERM");
      }
      expect({ code: await proc.exited, signal: proc.signalCode }).toEqual({ code: 0, signal: null });
      expect(await stderr).toContain("the CPU profiler is on, so serve runs as started");
      expect([...new Bun.Glob("*.cpuprofile").scanSync(profiles)]).toHaveLength(1);
    },
    30_000,
  );

  // After the build above. The entry's time is taken before its other modules load (src/cli/entry-time.ts), in the bundle too.
  test("says at DEBUG where its start-up time went, step by step, within the time it took to answer", async () => {
    const binary = join(ROOT, "dist", "hermes-mcp");
    const port = freePort();
    const started = performance.now();
    const proc = Bun.spawn([binary, "serve"], {
      cwd: home,
      env: { HOME: home, BIND_PORT: String(port), PATH: "/usr/bin:/bin", LOG_LEVEL: "DEBUG", LOG_FORMAT: "json" },
      stdout: "ignore",
      stderr: "pipe",
    });
    const stderr = new Response(proc.stderr).text();
    let answeredAfter: number;
    try {
      expect((await firstHealth(port))?.status).toBe(200);
      answeredAfter = performance.now() - started;
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
    const line = (await stderr).split("\n").find((l) => l.includes('"start-up steps"'));
    expect(line, await stderr).toBeDefined();
    const { time: _time, level, msg, ...fields } = JSON.parse(line as string) as Record<string, number | string>;
    expect({ level, msg }).toEqual({ level: "debug", msg: "start-up steps" });
    const names = ["runtime", "modules", "config", "lock", "database", "listen", "recovery", "layers"];
    expect(Object.keys(fields)).toEqual([...names.map((n) => `${n}_ms`), "total_ms"]);
    const steps = names.map((n) => fields[`${n}_ms`] as number);
    expect(steps.every((ms) => ms >= 0)).toBe(true);
    // The runtime's own start and loading serve's modules take real time in any build.
    expect(steps[0]).toBeGreaterThan(0);
    expect(steps[1]).toBeGreaterThan(0);
    const total = fields.total_ms as number;
    expect(Math.abs(steps.reduce((sum, ms) => sum + ms, 0) - total)).toBeLessThanOrEqual(0.5);
    // Counted inside the process that answers: never more than the test saw from exec to the first answer.
    expect(total).toBeLessThan(answeredAfter);
  });

  // After the build above. bun:ffi inside the single binary: madvise from the C library (src/code-pages.ts).
  test.if(process.platform === "linux")(
    "once quiet, hands its code pages back to the page cache and keeps answering",
    async () => {
      const binary = join(ROOT, "dist", "hermes-mcp");
      const port = freePort();
      const proc = Bun.spawn([binary, "serve"], {
        cwd: home,
        env: { HOME: home, BIND_PORT: String(port), PATH: "/usr/bin:/bin", LOG_LEVEL: "DEBUG" },
        stdout: "ignore",
        stderr: "pipe",
      });
      let logs = "";
      const drain = (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of proc.stderr) logs += decoder.decode(chunk, { stream: true });
      })();
      const rssFile = (): number => Number(/RssFile:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"))?.[1]);
      try {
        expect((await firstHealth(port))?.status).toBe(200);
        const mapped = rssFile();
        const released = /quiet: code pages handed back mib=([\d.]+)/;
        const deadline = Date.now() + 15_000;
        while (!released.test(logs) && Date.now() < deadline) await Bun.sleep(100);
        expect(Number(released.exec(logs)?.[1] ?? 0), logs).toBeGreaterThan(5);
        expect(rssFile()).toBeLessThan(mapped - 5 * 1024);
        expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
        expect((await fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST" })).status).toBe(401);
      } finally {
        proc.kill("SIGTERM");
        expect(await proc.exited).toBe(0);
        await drain;
      }
    },
    30_000,
  );

  test("cross-compiles for linux-arm64 as the README shows", () => {
    const result = crossBuild(["--target=bun-linux-arm64", "--outfile", join(out, "hermes-mcp-linux-arm64")]);
    expect(result.exitCode, result.stderr.toString()).toBe(0);
    const header = readFileSync(join(out, "hermes-mcp-linux-arm64")).subarray(0, 20);
    // ELF, e_machine = 183 (AArch64)
    expect([...header.subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    expect(header[18]).toBe(183);
  });
});
