// bench/servers.ts processCpuMs reads a process's CPU time, user and kernel apart: the figure behind the bench's CPU per call.
import { expect, test } from "bun:test";
import { processCpuMs } from "../../bench/servers.ts";

test.skipIf(process.platform !== "linux")(
  "a process spinning for 300 ms has used about that much user CPU, and a sleeping one none",
  async () => {
    // Spins, then sleeps: read once it sleeps, its count no longer moves.
    const spinning = Bun.spawn(
      [process.execPath, "-e", "const end = Date.now() + 300; while (Date.now() < end); console.log('done'); await Bun.sleep(60_000);"],
      {
        stdout: "pipe",
      },
    );
    const asleep = Bun.spawn(["sleep", "60"], { stdout: "ignore" });
    try {
      const reader = spinning.stdout.getReader();
      const { value } = await reader.read();
      expect(new TextDecoder().decode(value)).toContain("done");
      const busy = processCpuMs(spinning.pid);
      const quiet = processCpuMs(asleep.pid);
      // (Loose bounds: the runtime's own start adds CPU; a loaded machine stretches the 300 ms of wall time, not the CPU.)
      expect(busy.userMs).toBeGreaterThanOrEqual(200);
      expect(busy.userMs + busy.systemMs).toBeLessThan(5_000);
      expect(quiet.userMs + quiet.systemMs).toBeLessThan(30);
    } finally {
      spinning.kill("SIGKILL");
      asleep.kill("SIGKILL");
      await Promise.all([spinning.exited, asleep.exited]);
    }
  },
);
