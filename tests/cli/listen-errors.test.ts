// Why a listen fails, as serve and doctor word it: each errno Bun reports, and nothing for a busy port or a stranger error.
import { expect, test } from "bun:test";
import { unlistenable } from "../../src/cli/listen-errors.ts";

const errno = (code: string): Error => Object.assign(new Error(code), { code });

test("a privileged port asks for BIND_PORT 1024 or above; an address not of this machine for BIND_HOST", () => {
  expect(unlistenable(errno("EACCES"))).toEqual({
    detail: "the port needs extra privileges on this system",
    fix: "set BIND_PORT to 1024 or above (the default, 8765, is fine)",
  });
  for (const code of ["EADDRNOTAVAIL", "EINVAL", "ENOTFOUND", "EAI_AGAIN"]) {
    expect(unlistenable(errno(code))?.detail).toBe(`BIND_HOST is not an address of this machine (${code})`);
  }
});

test("a busy port, an error with no code, and a non-error are left to the caller", () => {
  expect(unlistenable(errno("EADDRINUSE"))).toBeNull();
  expect(unlistenable(new Error("boom"))).toBeNull();
  expect(unlistenable(null)).toBeNull();
});
