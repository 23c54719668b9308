// Login names for printed commands (chown, loginctl) and for comparing with sudo's and doas's caller.
import { expect, test } from "bun:test";
import { loginName } from "../src/login-name.ts";

test.skipIf(process.platform === "win32")("a uid's login name: the account database's, not $USER; an unknown uid is its number", () => {
  const own = Bun.spawnSync(["id", "-un"]).stdout.toString().trim();
  const saved = process.env.USER;
  // A stale $USER (a container image's, or su -m's) does not win over the account database.
  process.env.USER = "someone-else";
  try {
    expect(loginName()).toBe(own);
  } finally {
    if (saved === undefined) delete process.env.USER;
    else process.env.USER = saved;
  }
  expect(loginName(0)).toBe("root");
  expect(loginName(2_000_000_001)).toBe("2000000001");
});
