// serve re-executes itself (same PID) only to carry the env file's runtime variables, which Bun reads as it starts; otherwise it starts once.
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  test("starts once, with the environment it was given: no JavaScriptCore option of its own (each relaunch is a second runtime start)", async () => {
    const daemon = await startTestDaemon({ home: newHome() });
    daemons.push(daemon);
    const environ = environOf(daemon.proc.pid);
    expect(Object.keys(environ).filter((name) => name.startsWith("BUN_JSC_"))).toEqual([]);
    expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
    expect(await daemon.stop()).toBe(0);
    expect(daemon.logs()).toContain("hermes-mcp listening");
  });

  test("an owner's own JavaScriptCore option in the environment reaches the runtime as given", async () => {
    const daemon = await startTestDaemon({ home: newHome(), env: { BUN_JSC_useFTLJIT: "0" } });
    daemons.push(daemon);
    expect(environOf(daemon.proc.pid).BUN_JSC_useFTLJIT).toBe("0");
  });

  test("the env file's runtime variables (BUN_JSC_*, TZ, NODE_EXTRA_CA_CERTS…) reach the process; its settings stay config's", async () => {
    const home = newHome();
    mkdirSync(join(home, ".config", "hermes-mcp"), { recursive: true });
    writeFileSync(
      join(home, ".config", "hermes-mcp", "env"),
      `BUN_JSC_useFTLJIT=0\nBUN_JSC_thresholdForJITAfterWarmUp=70\nTZ=Pacific/Auckland\nHTTPS_PROXY=http://from-file.invalid\nHERMES_MODEL=hermes-agent\n`,
    );
    const daemon = await startTestDaemon({ home, env: { HTTPS_PROXY: "" } });
    daemons.push(daemon);
    const environ = environOf(daemon.proc.pid);
    expect(environ.BUN_JSC_useFTLJIT).toBe("0");
    expect(environ.BUN_JSC_thresholdForJITAfterWarmUp).toBe("70");
    expect(environ.BUN_JSC_thresholdForOptimizeAfterWarmUp).toBeUndefined();
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
});

describe.if(process.platform !== "win32")("relaunchWithEnvironment", () => {
  /** Runs a script that prints TZ, its arguments and PID, then calls relaunchWithEnvironment; one JSON line per run. */
  async function runsOf(envFile: string | null): Promise<{ tz: string | null; args: string[]; pid: number }[]> {
    const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-relaunch-"));
    try {
      if (envFile !== null) {
        mkdirSync(join(dir, ".config", "hermes-mcp"), { recursive: true });
        writeFileSync(join(dir, ".config", "hermes-mcp", "env"), envFile, { mode: 0o600 });
      }
      const script = join(dir, "relaunch.ts");
      writeFileSync(
        script,
        `import { relaunchWithEnvironment } from ${JSON.stringify(join(import.meta.dir, "../../src/cli/relaunch.ts"))};
         console.log(JSON.stringify({ tz: process.env.TZ ?? null, args: process.argv.slice(2), pid: process.pid }));
         relaunchWithEnvironment();`,
      );
      const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: dir };
      const proc = Bun.spawn([process.execPath, script, "serve", "--flag"], { env, cwd: dir, stdout: "pipe", stderr: "pipe" });
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      expect(code).toBe(0);
      const runs = out
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { tz: string | null; args: string[]; pid: number });
      for (const run of runs) expect(run.pid).toBe(proc.pid);
      return runs;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test("with a runtime variable in the env file: execs the same script with the same arguments once, with it set; then returns", async () => {
    const runs = await runsOf("TZ=Pacific/Auckland\nBIND_PORT=9000\n");
    expect(runs.map((run) => run.tz)).toEqual([null, "Pacific/Auckland"]);
    expect(runs.map((run) => run.args)).toEqual([
      ["serve", "--flag"],
      ["serve", "--flag"],
    ]);
  });

  test("with none to add (no env file, or only settings in it): runs once", async () => {
    expect((await runsOf(null)).length).toBe(1);
    expect((await runsOf("BIND_PORT=9000\nHERMES_MODEL=hermes-agent\n")).length).toBe(1);
  });

  test("a typo after serve is still answered by the relaunched process, with the fix", async () => {
    const home = mkdtempSync(join(tmpdir(), "hermes-mcp-relaunch-home-"));
    mkdirSync(join(home, ".config", "hermes-mcp"), { recursive: true });
    writeFileSync(join(home, ".config", "hermes-mcp", "env"), "TZ=Pacific/Auckland\n", { mode: 0o600 });
    const result = await runCli(["serve", "--port", "9000"], { home });
    rmSync(home, { recursive: true, force: true });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("BIND_PORT");
    // Said once: by the relaunched process only.
    expect(result.stderr.split("--port").length - 1).toBe(1);
  });
});

test("every hermes-mcp setting is left to config, never carried as a runtime variable; only the runtime's own are", () => {
  expect(SETTING_NAMES.filter((name) => RUNTIME_VARIABLE.test(name))).toEqual([]);
  const carried = ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "HTTPS_PROXY", "no_proxy", "TZ", "BUN_JSC_useFTLJIT"];
  expect(carried.filter((name) => !RUNTIME_VARIABLE.test(name))).toEqual([]);
  const refused = ["LD_PRELOAD", "BUN_OPTIONS", "NODE_OPTIONS", "DYLD_INSERT_LIBRARIES", "PATH", "BUN_JSC_", "BUN_JSC_x=1"];
  expect(refused.filter((name) => RUNTIME_VARIABLE.test(name))).toEqual([]);
});
