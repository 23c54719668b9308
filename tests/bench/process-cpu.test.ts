// bench/servers.ts processCpuMs reads a process's CPU time, user and kernel apart: the figure behind the bench's CPU per call.
import { expect, test } from "bun:test";
import { processCpuMs } from "../../bench/servers.ts";

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
      const busy = processCpuMs(spinning.pid);
      const quiet = processCpuMs(asleep.pid);
      // Whole 10 ms ticks, so within one tick of what the process counted itself.
      expect(busy.userMs).toBeGreaterThanOrEqual(290);
      expect(busy.userMs + busy.systemMs).toBeLessThan(5_000);
      expect(quiet.userMs + quiet.systemMs).toBeLessThan(30);
    } finally {
      spinning.kill("SIGKILL");
      asleep.kill("SIGKILL");
      await Promise.all([spinning.exited, asleep.exited]);
    }
  },
);
