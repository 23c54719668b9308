// bench/servers.ts processStat reads what a process has cost: CPU time, user and kernel apart, and page faults (the figures behind the bench's CPU per call and start cost).
import { expect, test } from "bun:test";
import { processStat, threadsCpuNs } from "../../bench/servers.ts";

test.skipIf(process.platform !== "linux")(
  "a process that spun for 300 ms of CPU reads at least that much user CPU, and a sleeping one none",
  async () => {
    // Spins until its own CPU clock says 300 ms (not the wall clock: a busy machine would stretch that), then sleeps.
    const spin = "while (process.cpuUsage().user < 300_000); console.log('done'); await Bun.sleep(60_000);";
    const spinning = Bun.spawn([process.execPath, "-e", spin], { stdout: "pipe" });
    const asleep = Bun.spawn(["sleep", "60"], { stdout: "ignore" });
    try {
      const { value } = await spinning.stdout.getReader().read();
      expect(new TextDecoder().decode(value)).toContain("done");
      const busy = processStat(spinning.pid);
      const quiet = processStat(asleep.pid);
      // Whole 10 ms ticks, so within one tick of what the process counted itself.
      expect(busy.userMs).toBeGreaterThanOrEqual(290);
      expect(busy.userMs + busy.systemMs).toBeLessThan(5_000);
      expect(quiet.userMs + quiet.systemMs).toBeLessThan(30);
      // schedstat counts the same CPU exactly, per thread still alive: at least the spin's 300 ms.
      expect(threadsCpuNs(spinning.pid)).toBeGreaterThanOrEqual(300e6);
      expect(threadsCpuNs(asleep.pid)).toBeLessThan(30e6);
    } finally {
      spinning.kill("SIGKILL");
      asleep.kill("SIGKILL");
      await Promise.all([spinning.exited, asleep.exited]);
    }
  },
);

test.skipIf(process.platform !== "linux")("page faults read as many as the process counted itself (getrusage)", async () => {
  // Touches 64 MiB of fresh memory, says how many faults getrusage counted (every thread), then sleeps.
  const touch = [
    "const bytes = new Uint8Array(64 << 20);",
    "for (let i = 0; i < bytes.length; i += 4096) bytes[i] = 1;",
    "const usage = process.resourceUsage();",
    "console.log(`faults ${usage.minorPageFault} ${usage.majorPageFault}`);",
    "await Bun.sleep(60_000);",
  ].join("\n");
  const toucher = Bun.spawn([process.execPath, "-e", touch], { stdout: "pipe" });
  try {
    const { value } = await toucher.stdout.getReader().read();
    const [, minor, major] = /faults (\d+) (\d+)/.exec(new TextDecoder().decode(value)) ?? [];
    const stat = processStat(toucher.pid);
    // Read after the process's own count: as many or a few more (its runtime went on while it printed and slept).
    expect(stat.minorFaults).toBeGreaterThanOrEqual(Number(minor));
    expect(stat.minorFaults).toBeLessThan(Number(minor) + 2_000);
    expect(stat.majorFaults).toBeGreaterThanOrEqual(Number(major));
    expect(stat.majorFaults).toBeLessThan(Number(major) + 200);
  } finally {
    toucher.kill("SIGKILL");
    await toucher.exited;
  }
});
