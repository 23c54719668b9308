// Drops a file from the kernel's page cache, as a reboot does: the binary's next start reads it from disk (Linux).
import { closeSync, fsyncSync, openSync } from "node:fs";

export interface Eviction {
  /** MiB of the file in the page cache before, and after the drop. */
  beforeMiB: number;
  afterMiB: number;
}

/** MiB of `path` held in the page cache (util-linux `fincore`); null when that cannot be read here. */
export function cachedMiB(path: string): number | null {
  if (!Bun.which("fincore")) return null;
  const run = Bun.spawnSync(["fincore", "--bytes", "--noheadings", "--raw", "--output", "RES", path], { stderr: "pipe" });
  const bytes = Number(run.stdout.toString().trim());
  return run.exitCode === 0 && Number.isFinite(bytes) ? bytes / 1048576 : null;
}

/**
 * Why it matters: a file just written (a fresh build, a fresh download) sits whole in the page cache, and the kernel
 * maps cached pages around every page a process touches (fault-around), so the same binary shows several MiB more
 * RSS than after a reboot. Written pages are flushed first (dirty pages cannot be dropped), then dropped with
 * POSIX_FADV_DONTNEED (`dd iflag=nocache`). Returns what was held before and after, or why it could not be done.
 */
export function dropFromPageCache(path: string): Eviction | string {
  const beforeMiB = cachedMiB(path);
  if (beforeMiB === null) return `fincore (util-linux) cannot tell how much of ${path} is in the page cache`;
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const dd = Bun.spawnSync(["dd", `if=${path}`, "iflag=nocache", "count=0", "status=none"], { stderr: "pipe" });
  if (dd.exitCode !== 0) return `dd could not drop ${path} from the page cache: ${dd.stderr.toString().trim()}`;
  return { beforeMiB, afterMiB: cachedMiB(path) ?? beforeMiB };
}
