// `hermes-mcp set-password` on a real pseudo-terminal: both prompts answered, nothing echoed, mismatch and Ctrl-C leave no password.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { verifyConsentPassword } from "../../src/oauth/password.ts";
import { openStore } from "../../src/store/index.ts";
import { databaseOf, tempHomes } from "../support/daemon.ts";
import { runCliOnTerminal } from "../support/pty.ts";

const home = tempHomes();

const PASSWORD = "correct horse battery";
const passwordSaved = async (h: string, password: string): Promise<boolean> => {
  const store = openStore(databaseOf(h));
  try {
    return await verifyConsentPassword(store, password);
  } finally {
    store.close();
  }
};

describe("set-password on a terminal", () => {
  test("typing the password twice sets it, and it is never shown", async () => {
    const h = home();
    const session = runCliOnTerminal(["set-password"], { home: h });
    await session.waitFor("New password:");
    session.type(`${PASSWORD}\r`);
    await session.waitFor("Repeat it:");
    session.type(`${PASSWORD}\r`);
    const { code, screen } = await session.exited();
    expect(code, screen).toBe(0);
    expect(screen).toContain("Password set");
    expect(screen).not.toContain("correct horse");
    expect(await passwordSaved(h, PASSWORD)).toBe(true);
  });

  test("keystrokes typed slowly, with a correction, still make one password", async () => {
    const h = home();
    const session = runCliOnTerminal(["set-password"], { home: h });
    await session.waitFor("New password:");
    for (const key of [..."correct horsX", "\u007f", ..."e battery", "\r"]) {
      session.type(key);
      await Bun.sleep(5);
    }
    await session.waitFor("Repeat it:");
    session.type(`${PASSWORD}\r`);
    const { code, screen } = await session.exited();
    expect(code, screen).toBe(0);
    expect(await passwordSaved(h, PASSWORD)).toBe(true);
  });

  test("two different passwords: refused, nothing stored", async () => {
    const h = home();
    const session = runCliOnTerminal(["set-password"], { home: h });
    await session.waitFor("New password:");
    session.type(`${PASSWORD}\r`);
    await session.waitFor("Repeat it:");
    session.type("something else entirely\r");
    const { code, screen } = await session.exited();
    expect(code).toBe(1);
    expect(screen).toContain("the two passwords differ; nothing was changed");
    expect(screen).not.toContain("something else");
    expect(await passwordSaved(h, PASSWORD)).toBe(false);
  });

  test("Ctrl-C at either prompt cancels with exit 130 and stores nothing", async () => {
    for (const atSecond of [false, true]) {
      const h = home();
      const session = runCliOnTerminal(["set-password"], { home: h });
      await session.waitFor("New password:");
      if (atSecond) {
        session.type(`${PASSWORD}\r`);
        await session.waitFor("Repeat it:");
      }
      session.type("abc\u0003");
      const { code, screen } = await session.exited();
      expect(code).toBe(130);
      expect(screen).toContain("cancelled; nothing was changed");
      expect(await passwordSaved(h, PASSWORD)).toBe(false);
    }
  });

  test("a password that is too short is refused before asking again", async () => {
    const session = runCliOnTerminal(["set-password"], { home: home() });
    await session.waitFor("New password:");
    session.type("short\r");
    const { code, screen } = await session.exited();
    expect(code).toBe(1);
    expect(screen).toContain("at least 8 characters");
    expect(screen).not.toContain("Repeat it:");
  });
});
