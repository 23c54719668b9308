// serve re-executes itself once with its JavaScriptCore options (FTL off, earlier tier-up): same PID, same output, the owner's own settings kept.
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FTL_OPTION, SERVE_RUNTIME_OPTIONS } from "../../src/cli/relaunch.ts";
import { RUNTIME_VARIABLE } from "../../src/config/runtime-variables.ts";
import { SETTING_NAMES } from "../../src/config/names.ts";
import { runCli, startTestDaemon, tempHomes, type TestDaemon } from "../support/daemon.ts";

/** The environment the process with this PID runs with now (after any execve): Linux's /proc. */
function environOf(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return Object.fromEntries(entries.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]));
}

const newHome = tempHomes();
const daemons: TestDaemon[] = [];
afterEach(async () => {
  for (const daemon of daemons.splice(0)) await daemon.stop();
});

describe.if(process.platform === "linux")("serve", () => {
  test("runs with its JIT options in the process that was started (same PID), and answers as usual", async () => {
    const daemon = await startTestDaemon({ home: newHome() });
    daemons.push(daemon);
    const environ = environOf(daemon.proc.pid);
    expect(environ[FTL_OPTION]).toBe("0");
    expect(environ.BUN_JSC_thresholdForOptimizeAfterWarmUp).toBe("100");
    expect(environ.BUN_JSC_thresholdForJITAfterWarmUp).toBe("50");
    // Bun's own GC timer off: the daemon paces its collections itself while busy (src/gc-pacing.ts).
    expect(environ.BUN_GC_TIMER_DISABLE).toBe("1");
    expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
    expect(await daemon.stop()).toBe(0);
    expect(daemon.logs()).toContain("hermes-mcp listening");
  });

  test("an owner's own setting of the option is kept (FTL back on with 1)", async () => {
    const daemon = await startTestDaemon({ home: newHome(), env: { [FTL_OPTION]: "1" } });
    daemons.push(daemon);
    expect(environOf(daemon.proc.pid)[FTL_OPTION]).toBe("1");
  });

  test("the env file's runtime variables (BUN_JSC_*, TZ, NODE_EXTRA_CA_CERTS…) reach the process; its settings stay config's", async () => {
    const home = newHome();
    mkdirSync(join(home, ".config", "hermes-mcp"), { recursive: true });
    writeFileSync(
      join(home, ".config", "hermes-mcp", "env"),
      `${FTL_OPTION}=1\nBUN_JSC_thresholdForJITAfterWarmUp=70\nTZ=Pacific/Auckland\nHTTPS_PROXY=http://from-file.invalid\nHERMES_MODEL=hermes-agent\n`,
    );
    const daemon = await startTestDaemon({ home, env: { HTTPS_PROXY: "" } });
    daemons.push(daemon);
    const environ = environOf(daemon.proc.pid);
    expect(environ[FTL_OPTION]).toBe("1");
    expect(environ.BUN_JSC_thresholdForJITAfterWarmUp).toBe("70");
    expect(environ.BUN_JSC_thresholdForOptimizeAfterWarmUp).toBe("100");
    expect(environ.TZ).toBe("Pacific/Auckland");
    // The environment wins, even set empty; a setting is read from the file by config, which names where it came from.
    expect(environ.HTTPS_PROXY).toBe("");
    expect(environ.HERMES_MODEL).toBeUndefined();
    expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
  });

  test("a ./.env (a cloned repository's, or ~/.env under the service) carries no runtime variable: it could run code as the owner", async () => {
    const home = newHome();
    const marker = join(home, "preloaded");
    writeFileSync(join(home, "preload.ts"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`);
    writeFileSync(join(home, ".env"), `BUN_OPTIONS=--preload ${join(home, "preload.ts")}\nTZ=Pacific/Auckland\nNODE_OPTIONS=--require x\n`);
    // Nor does the env file carry anything but the runtime variables named in the README.
    mkdirSync(join(home, ".config", "hermes-mcp"), { recursive: true });
    writeFileSync(join(home, ".config", "hermes-mcp", "env"), `LD_PRELOAD=${join(home, "nothing.so")}\n`);
    const daemon = await startTestDaemon({ home });
    daemons.push(daemon);
    const environ = environOf(daemon.proc.pid);
    expect(environ.BUN_OPTIONS).toBeUndefined();
    expect(environ.NODE_OPTIONS).toBeUndefined();
    expect(environ.TZ).toBeUndefined();
    expect(environ.LD_PRELOAD).toBeUndefined();
    expect(existsSync(marker)).toBe(false);
  });

  test("an env file others may write carries nothing: another user could set HTTPS_PROXY and read the gateway key", async () => {
    const home = newHome();
    const envFile = join(home, ".config", "hermes-mcp", "env");
    mkdirSync(join(home, ".config", "hermes-mcp"), { recursive: true });
    writeFileSync(envFile, "TZ=Pacific/Auckland\nHTTPS_PROXY=http://from-file.invalid\n");
    chmodSync(envFile, 0o666);
    const daemon = await startTestDaemon({ home });
    daemons.push(daemon);
    const environ = environOf(daemon.proc.pid);
    expect(environ.TZ).toBeUndefined();
    expect(environ.HTTPS_PROXY).toBeUndefined();
    // Made private again, the same file is carried (the refusal is the mode's, not the file's).
    await daemon.stop();
    chmodSync(envFile, 0o600);
    const again = await startTestDaemon({ home });
    daemons.push(again);
    expect(environOf(again.proc.pid).TZ).toBe("Pacific/Auckland");
  });

  test("an owner who sets the GC timer's period (in the environment or the env file) keeps Bun's GC timer on", async () => {
    const daemon = await startTestDaemon({ home: newHome(), env: { BUN_GC_TIMER_INTERVAL: "500" } });
    daemons.push(daemon);
    const environ = environOf(daemon.proc.pid);
    expect(environ.BUN_GC_TIMER_INTERVAL).toBe("500");
    expect(environ.BUN_GC_TIMER_DISABLE).toBeUndefined();
    expect(environ[FTL_OPTION]).toBe("0");
    const home = newHome();
    mkdirSync(join(home, ".config", "hermes-mcp"), { recursive: true });
    writeFileSync(join(home, ".config", "hermes-mcp", "env"), "BUN_GC_TIMER_INTERVAL=2000\n");
    const fromFile = await startTestDaemon({ home });
    daemons.push(fromFile);
    const fileEnviron = environOf(fromFile.proc.pid);
    expect(fileEnviron.BUN_GC_TIMER_INTERVAL).toBe("2000");
    expect(fileEnviron.BUN_GC_TIMER_DISABLE).toBeUndefined();
  });

  test("an owner's own threshold is kept while the other options are set", async () => {
    const daemon = await startTestDaemon({ home: newHome(), env: { BUN_JSC_thresholdForOptimizeAfterWarmUp: "2000" } });
    daemons.push(daemon);
    const environ = environOf(daemon.proc.pid);
    expect(environ.BUN_JSC_thresholdForOptimizeAfterWarmUp).toBe("2000");
    expect(environ[FTL_OPTION]).toBe("0");
    expect(environ.BUN_JSC_thresholdForJITAfterWarmUp).toBe("50");
  });
});

/**
 * Runs a script that prints `report` (a JS expression) as JSON, then calls relaunchWithEnvironment("serve"), with
 * `bunArgs` before the script and `args` after it, in a fresh folder with no env file; its output and profiles.
 */
async function runRelaunchScript(
  report: string,
  bunArgs: (dir: string) => string[],
  args: string[],
): Promise<{ out: string; err: string; code: number; pid: number; profiles: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-relaunch-"));
  const script = join(dir, "relaunch.ts");
  writeFileSync(
    script,
    `import { relaunchWithEnvironment } from ${JSON.stringify(join(import.meta.dir, "../../src/cli/relaunch.ts"))};
     console.log(JSON.stringify(${report}));
     relaunchWithEnvironment("serve");`,
  );
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: dir };
  const proc = Bun.spawn([process.execPath, ...bunArgs(dir), script, ...args], { env, cwd: dir, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const profiles = existsSync(join(dir, "profiles")) ? [...new Bun.Glob("*.cpuprofile").scanSync(join(dir, "profiles"))] : [];
  rmSync(dir, { recursive: true, force: true });
  return { out, err, code, pid: proc.pid, profiles };
}

describe.if(process.platform !== "win32")("relaunchWithEnvironment", () => {
  test("execs the same script with the same arguments once, with the options set; then returns", async () => {
    const { out, code, pid } = await runRelaunchScript(
      `{ options: Object.fromEntries(${JSON.stringify(Object.keys(SERVE_RUNTIME_OPTIONS))}.map((name) => [name, process.env[name] ?? null])), args: process.argv.slice(2), pid: process.pid }`,
      () => [],
      ["serve", "--flag"],
    );
    expect(code).toBe(0);
    const runs = out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { options: Record<string, string | null>; args: string[]; pid: number });
    const unset = Object.fromEntries(Object.keys(SERVE_RUNTIME_OPTIONS).map((name) => [name, null]));
    expect(runs.map((run) => run.options)).toEqual([unset, { ...SERVE_RUNTIME_OPTIONS }]);
    expect(runs.map((run) => run.args)).toEqual([
      ["serve", "--flag"],
      ["serve", "--flag"],
    ]);
    expect(runs[1]?.pid).toBe(pid);
  });

  test("under Bun's CPU profiler it runs as started, and says what that leaves out", async () => {
    const { out, err, code, pid, profiles } = await runRelaunchScript(
      `{ ftl: process.env.${FTL_OPTION} ?? null, pid: process.pid }`,
      (dir) => ["--cpu-prof", `--cpu-prof-dir=${join(dir, "profiles")}`],
      ["serve"],
    );
    expect(code).toBe(0);
    expect(out.trim().split("\n")).toEqual([JSON.stringify({ ftl: null, pid })]);
    expect(err).toContain(`the CPU profiler is on, so serve runs as started, without ${Object.keys(SERVE_RUNTIME_OPTIONS).join(", ")}`);
    expect(profiles).toHaveLength(1);
  });

  test("under the profiler, the note names only what is left out: not an option the environment sets, but the env file's variables", async () => {
    // The note goes through the CLI's stderr writer (src/cli/output.ts): read from a process of its own.
    const relaunch = JSON.stringify(join(import.meta.dir, "../../src/cli/relaunch.ts"));
    const proc = Bun.spawn(
      [
        process.execPath,
        "-e",
        `import { relaunchWithEnvironment } from ${relaunch};
         relaunchWithEnvironment("serve", { BUN_JSC_thresholdForOptimizeAfterWarmUp: "2000" }, { TZ: "Pacific/Auckland" }, ["--cpu-prof-md"]);
         relaunchWithEnvironment("doctor", {}, {}, ["--cpu-prof"]);
         console.log("still running");`,
      ],
      { env: { PATH: process.env.PATH ?? "" }, stdout: "pipe", stderr: "pipe" },
    );
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const written = err.split(/(?<=\n)/).filter((line) => line !== "");
    expect({ out, code }).toEqual({ out: "still running\n", code: 0 });
    // Still running here: nothing was executed. The doctor call had nothing to add, so it said nothing.
    expect(written).toEqual([
      "hermes-mcp: the CPU profiler is on, so serve runs as started, without TZ, BUN_JSC_useFTLJIT, BUN_JSC_thresholdForJITAfterWarmUp, BUN_GC_TIMER_DISABLE (set them in the environment to profile with them)\n",
    ]);
  });

  test("a typo after serve is still answered by the relaunched process, with the fix", async () => {
    const home = mkdtempSync(join(tmpdir(), "hermes-mcp-relaunch-home-"));
    const result = await runCli(["serve", "--port", "9000"], { home });
    rmSync(home, { recursive: true, force: true });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("BIND_PORT");
  });
});

test("every hermes-mcp setting is left to config, never carried as a runtime variable; only the runtime's own are", () => {
  expect(SETTING_NAMES.filter((name) => RUNTIME_VARIABLE.test(name))).toEqual([]);
  const carried = ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "HTTPS_PROXY", "no_proxy", "TZ", "BUN_JSC_useFTLJIT", "BUN_GC_TIMER_INTERVAL"];
  expect(carried.filter((name) => !RUNTIME_VARIABLE.test(name))).toEqual([]);
  const refused = ["LD_PRELOAD", "BUN_OPTIONS", "NODE_OPTIONS", "DYLD_INSERT_LIBRARIES", "PATH", "BUN_JSC_", "BUN_JSC_x=1"];
  expect(refused.filter((name) => RUNTIME_VARIABLE.test(name))).toEqual([]);
});
