// Colour on a real terminal (pseudo-terminal), none when NO_COLOR is set: doctor's ✔/⚠/✖ and --help. Piped output is checked in cli.test.ts.
import { describe, expect, test } from "bun:test";
import { freePort, tempHomes } from "../support/daemon.ts";
import { reserveClosedPort } from "../support/fake-gateway.ts";
import { runCliOnTerminal } from "../support/pty.ts";

const home = tempHomes();

const doctorEnv = (): Record<string, string> => ({
  BIND_PORT: String(freePort()),
  HERMES_API_URL: `http://127.0.0.1:${reserveClosedPort()}`,
});

describe("on a terminal", () => {
  test("doctor colours ✔ green, ⚠ yellow and ✖ red", async () => {
    const { screen } = await runCliOnTerminal(["doctor"], { home: home(), env: doctorEnv() }).exited();
    expect(screen).toContain("\u001b[32m✔\u001b[39m configuration valid");
    expect(screen).toContain("\u001b[33m⚠\u001b[39m");
    expect(screen).toContain("\u001b[31m✖\u001b[39m Hermes gateway reachable");
  });

  test("NO_COLOR turns colour off, even on a terminal", async () => {
    const { screen } = await runCliOnTerminal(["doctor"], { home: home(), env: { ...doctorEnv(), NO_COLOR: "yes" } }).exited();
    expect(screen).toContain("✔ configuration valid");
    expect(screen).not.toContain("\u001b[");
    const help = await runCliOnTerminal(["--help"], { home: home(), env: { NO_COLOR: "yes" } }).exited();
    expect(help.screen).toContain("USAGE");
    expect(help.screen).not.toContain("\u001b[");
  });

  test("--help is coloured", async () => {
    const { code, screen } = await runCliOnTerminal(["--help"], { home: home() }).exited();
    expect(code).toBe(0);
    expect(screen).toContain("\u001b[");
    expect(Bun.stripANSI(screen)).toContain("USAGE hermes-mcp");
  });

  test("an unknown command's line is styled", async () => {
    const { code, screen } = await runCliOnTerminal(["bogus"], { home: home() }).exited();
    expect(code).toBe(1);
    expect(screen).toContain('\u001b[31m✖\u001b[39m unknown command "bogus"');
  });
});
