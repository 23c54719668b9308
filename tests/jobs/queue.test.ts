import { describe, expect, test } from "bun:test";
import { JobQueue } from "../../src/jobs/queue.ts";

describe("JobQueue", () => {
  test("runs up to the limit, queues the rest in order, refuses when the line is full", () => {
    const q = new JobQueue(2, 2);
    expect(q.offer("a")).toBe("run");
    expect(q.offer("b")).toBe("run");
    expect(q.offer("c")).toBe("queued");
    expect(q.offer("d")).toBe("queued");
    expect(q.offer("e")).toBe("full");
    expect(q.position("c")).toBe(1);
    expect(q.position("d")).toBe(2);
    expect(q.release("a")).toBe("c");
    expect(q.position("d")).toBe(1);
    expect(q.runningCount).toBe(2);
  });

  test("a removed waiting job never starts; releasing an unknown job does nothing", () => {
    const q = new JobQueue(1, 5);
    q.offer("a");
    q.offer("b");
    q.offer("c");
    expect(q.remove("b")).toBe(true);
    expect(q.remove("b")).toBe(false);
    expect(q.release("zzz")).toBeNull();
    expect(q.release("a")).toBe("c");
    expect(q.release("c")).toBeNull();
    expect(q.runningCount).toBe(0);
  });
});
