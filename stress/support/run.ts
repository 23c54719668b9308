// The life of a stress script: its flags, the violations it collects, a stress world (fake gateway + real daemon in a temp HOME) and cleanup on every exit.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createToken, freePort, makeHome, removeHome, startTestDaemon, type TestDaemon } from "../../tests/support/daemon.ts";
import { FAKE_GATEWAY_KEY, type FakeGateway, type FakeGatewayOptions, startFakeGateway } from "../../tests/support/fake-gateway.ts";
import { STATIC_ID, setPassword } from "../../tests/support/oauth-flow.ts";

/** `--name N` from the command line, else the fallback. */
export function numberFlag(name: string, fallback: number): number {
  const at = Bun.argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(Bun.argv[at + 1]);
  if (!Number.isFinite(value)) throw new Error(`--${name} needs a number (got ${Bun.argv[at + 1] ?? "nothing"})`);
  return value;
}

/** Every broken promise of a run: printed at the end; any one makes the script exit 1. */
export class Violations {
  readonly list: string[] = [];
  private readonly counts = new Map<string, number>();

  /** Records one violation; the same kind is printed at most 5 times but always counted. */
  add(kind: string, detail = ""): void {
    const n = (this.counts.get(kind) ?? 0) + 1;
    this.counts.set(kind, n);
    if (n <= 5) this.list.push(detail ? `${kind}: ${detail}` : kind);
  }

  get count(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }

  report(): string {
    if (this.count === 0) return "violations: none";
    const kinds = [...this.counts.entries()].map(([kind, n]) => `  ${n} × ${kind}`).join("\n");
    return `violations: ${this.count}\n${kinds}\nfirst ones:\n${this.list.map((line) => `  - ${line}`).join("\n")}`;
  }
}

const cleanups: (() => Promise<void> | void)[] = [];
let cleaning: Promise<void> | null = null;

/** Runs every registered cleanup once (daemon killed, gateway stopped, temp HOME removed). */
export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) await Promise.resolve(fn()).catch(() => {});
  })();
  return cleaning;
}

for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    void cleanup().then(() => process.exit(130));
  });

/** Runs a script's body; an exception (a broken harness, not a finding) still cleans up, and exits 2. */
export async function main(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    await cleanup();
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(2);
  }
}

/** Prints the summary and exits: 0 without violations, 1 otherwise (after cleaning up). */
export async function finish(summary: string, violations: Violations, json: Record<string, unknown>): Promise<never> {
  await cleanup();
  console.log(summary);
  console.log(violations.report());
  // One machine-readable line last, for the CI tests.
  console.log(`STRESS-RESULT ${JSON.stringify({ ...json, violations: violations.count, first: violations.list })}`);
  process.exit(violations.count === 0 ? 0 : 1);
}

export { STATIC_ID };

export interface StressWorld {
  gateway: FakeGateway;
  daemon: TestDaemon;
  home: string;
  env: Record<string, string>;
  dbPath: string;
  staticSecret: string;
  /** Personal access tokens created with the real CLI. */
  tokens: string[];
  /** Everything every daemon of this world logged. */
  logs(): string;
  /** kill -9, then start again on the same HOME and port. */
  restart(): Promise<void>;
}

export interface StressWorldOptions {
  env?: Record<string, string>;
  personalTokens: number;
  password?: string;
  gateway?: FakeGatewayOptions;
}

/** A fake gateway and a real daemon (LOG_LEVEL=INFO, logs to files in the temp HOME), removed by cleanup(). */
export async function startStressWorld(options: StressWorldOptions): Promise<StressWorld> {
  const gateway = await startFakeGateway(options.gateway);
  const home = makeHome();
  cleanups.push(() => removeHome(home));
  cleanups.push(() => gateway.stop());
  const staticSecret = randomBytes(32).toString("base64url");
  const env = {
    LOG_LEVEL: "INFO",
    HERMES_API_KEY: FAKE_GATEWAY_KEY,
    HERMES_API_URL: gateway.url,
    OAUTH_CLIENT_ID: STATIC_ID,
    OAUTH_CLIENT_SECRET: staticSecret,
    ...options.env,
  };
  if (options.password) await setPassword(home, env, options.password);
  // One after the other: concurrent CLI runs on a database not yet created race on its first migration.
  const tokens: string[] = [];
  for (let i = 0; i < options.personalTokens; i++) tokens.push(await createToken(home, `stress-${i}`, env));
  const logFiles: string[] = [];
  const start = async (port: number): Promise<TestDaemon> => {
    const logFile = join(home, `daemon-${logFiles.length + 1}.log`);
    logFiles.push(logFile);
    return await startTestDaemon({ home, env, port, logFile });
  };
  const world: StressWorld = {
    gateway,
    daemon: await start(freePort()),
    home,
    env,
    dbPath: join(home, ".local", "share", "hermes-mcp", "hermes-mcp.db"),
    staticSecret,
    tokens,
    logs: () => logFiles.map((file) => (existsSync(file) ? readFileSync(file, "utf8") : "")).join(""),
    async restart() {
      await world.daemon.kill9();
      world.daemon = await start(world.daemon.port);
    },
  };
  cleanups.push(() => {
    if (world.daemon.proc.exitCode === null) world.daemon.proc.kill("SIGKILL");
  });
  return world;
}

/** Log lines that betray a bug whatever the load: an ERROR, an unhandled error, or a 5xx answered by the daemon itself. */
export function suspiciousLogLines(logs: string): string[] {
  return logs
    .split("\n")
    .filter((line) => /unhandled|uncaught|panic|status[=":\s]+5\d\d\b/i.test(line) || /\bERROR\b|"level":"error"/.test(line))
    .slice(0, 10);
}
