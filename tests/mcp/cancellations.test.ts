import { describe, expect, test } from "bun:test";
import { SyncCallRegistry } from "../../src/mcp/cancellations.ts";

describe("SyncCallRegistry", () => {
  test("finds the job a cancel names, per principal and request id", () => {
    const calls = new SyncCallRegistry();
    const forget = calls.register("pat:a", 7, "job-1");
    calls.register("pat:b", 7, "job-2");
    expect(calls.find("pat:a", 7)).toBe("job-1");
    expect(calls.find("pat:b", 7)).toBe("job-2");
    expect(calls.find("pat:a", "7")).toBeNull();
    forget();
    expect(calls.find("pat:a", 7)).toBeNull();
  });

  test("an ambiguous id (two live calls of one principal) cancels nothing", () => {
    const calls = new SyncCallRegistry();
    const first = calls.register("pat:a", 1, "job-1");
    calls.register("pat:a", 1, "job-2");
    expect(calls.find("pat:a", 1)).toBeNull();
    first();
    expect(calls.find("pat:a", 1)).toBe("job-2");
  });
});
