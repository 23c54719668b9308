// bench/servers.ts idleActivity counts what an idle process costs: a process woken by a timer is told apart from one asleep.
import { expect, test } from "bun:test";
import { idleActivity } from "../../bench/servers.ts";

test.skipIf(process.platform !== "linux")(
  "a process with a 50 ms timer wakes about 20 times a second; a sleeping one almost never",
  async () => {
    const ticking = Bun.spawn([process.execPath, "-e", "setInterval(() => {}, 50); await Bun.sleep(60_000);"], { stdout: "ignore" });
    const asleep = Bun.spawn(["sleep", "60"], { stdout: "ignore" });
    try {
      await Bun.sleep(500);
      const [busy, quiet] = await Promise.all([idleActivity(ticking.pid, 2000), idleActivity(asleep.pid, 2000)]);
      // (Loose bounds: a loaded CI machine delays timers, it does not add wake-ups to a sleeping process.)
      expect(busy.wakeups).toBeGreaterThan(10);
      expect(busy.wakeups).toBeLessThan(200);
      // Each wake-up runs a little: measured in nanoseconds, that is more than nothing.
      expect(busy.cpuMs).toBeGreaterThan(0);
      expect(quiet.wakeups).toBeLessThan(2);
      expect(quiet.cpuMs).toBeLessThan(5);
    } finally {
      ticking.kill("SIGKILL");
      asleep.kill("SIGKILL");
      await Promise.all([ticking.exited, asleep.exited]);
    }
  },
);

test.skipIf(process.platform !== "linux")(
  "a thread that ends in the window takes none of the others' wake-ups with it (never below zero)",
  async () => {
    // A worker that sleeps 1 ms at a time (a wake-up each) for 1.2 s, then ends; the main thread sleeps throughout.
    const worker = `const cell = new Int32Array(new SharedArrayBuffer(4)); const end = Date.now() + 1200; while (Date.now() < end) Atomics.wait(cell, 0, 0, 1);`;
    const script = `new Worker(URL.createObjectURL(new Blob([${JSON.stringify(worker)}], { type: "application/javascript" }))); await Bun.sleep(60_000);`;
    const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "ignore" });
    try {
      // Hundreds of wake-ups in the worker before the window; it ends inside it.
      await Bun.sleep(700);
      const activity = await idleActivity(proc.pid, 1500);
      expect(activity.wakeups).toBeGreaterThanOrEqual(0);
      expect(activity.cpuMs).toBeGreaterThanOrEqual(0);
    } finally {
      proc.kill("SIGKILL");
      await proc.exited;
    }
  },
);
