// Test harness around the fake `hermes mcp serve`: a control directory, the command line that starts it, and its switches.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const FAKE = join(import.meta.dir, "fake-hermes-mcp.ts");

export interface FakeHermes {
  /** HERMES_MCP_HERMES_COMMAND that starts it. */
  command: string;
  /** The same as argv. */
  argv: string[];
  dir: string;
  /** Every pid it ran as, oldest first. */
  pids(): number[];
  /** The environment its latest start saw. */
  env(): Record<string, string>;
  /** Every tools/call it received. */
  calls(): { tool: string; args: Record<string, unknown> }[];
  crashOnNextCall(): void;
  hangOnNextCall(): void;
  refuseToStart(refuse: boolean): void;
  hide(tools: string[]): void;
  incoming(text: string): void;
  remove(): void;
}

export function fakeHermes(): FakeHermes {
  const dir = mkdtempSync(join(tmpdir(), "fake-hermes-"));
  const at = (name: string): string => join(dir, name);
  const read = (name: string): string => (existsSync(at(name)) ? readFileSync(at(name), "utf8") : "");
  const argv = [process.execPath, FAKE, "--control", dir];
  return {
    command: argv.map((a) => `"${a}"`).join(" "),
    argv,
    dir,
    pids: () => read("pid").split("\n").filter(Boolean).map(Number),
    env: () => JSON.parse(read("env.json") || "{}"),
    calls: () =>
      read("calls")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    crashOnNextCall: () => writeFileSync(at("crash"), ""),
    hangOnNextCall: () => writeFileSync(at("hang"), ""),
    refuseToStart: (refuse) => (refuse ? writeFileSync(at("refuse-start"), "") : rmSync(at("refuse-start"), { force: true })),
    hide: (tools) => writeFileSync(at("hide"), tools.join("\n")),
    incoming: (text) => writeFileSync(at("incoming"), text),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The daemon environment that turns messaging on against this fake. */
export function messagingEnv(fake: FakeHermes, mode: "read" | "send", extra: Record<string, string> = {}): Record<string, string> {
  return { HERMES_MCP_MESSAGING: mode, HERMES_MCP_HERMES_COMMAND: fake.command, ...extra };
}
