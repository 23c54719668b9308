// Hands the running executable's clean code pages back to the page cache once the daemon is quiet (Linux): RSS falls to what idling touches.
import { readFileSync, readlinkSync } from "node:fs";

/** One mapping of the executable that may be dropped: its start address, length, and what it had resident. */
export interface CodeRange {
  start: bigint;
  length: bigint;
  rssKiB: number;
}

// Every mapping's first line; the path is absent for anonymous memory (the kernel pads with a space, or may not).
const HEADER = /^([0-9a-f]+)-([0-9a-f]+) ([r-][w-][x-][ps]) [0-9a-f]+ [0-9a-f]+:[0-9a-f]+ \d+(?:\s+(.*))?$/;

/**
 * The mappings of the file at `exePath` (as /proc/self/exe names it) whose pages can be dropped and read back from the
 * file unchanged: private, never writable, with no anonymous (copy-on-write) page and nothing locked. Everything else is
 * left alone: MADV_DONTNEED on a written private page would throw its contents away (a relocated RELRO page, for one),
 * and the data segment is written.
 */
export function releasableRanges(smaps: string, exePath: string): CodeRange[] {
  const ranges: CodeRange[] = [];
  let current: (CodeRange & { ours: boolean; anonymousKiB: number; lockedKiB: number }) | null = null;
  const finish = (): void => {
    if (current?.ours && current.anonymousKiB === 0 && current.lockedKiB === 0 && current.rssKiB > 0) {
      ranges.push({ start: current.start, length: current.length, rssKiB: current.rssKiB });
    }
    current = null;
  };
  for (const line of smaps.split("\n")) {
    const header = HEADER.exec(line);
    if (header) {
      finish();
      const [, from, to, perms, path = ""] = header as unknown as [string, string, string, string, string | undefined];
      const start = BigInt(`0x${from}`);
      current = {
        start,
        length: BigInt(`0x${to}`) - start,
        rssKiB: 0,
        ours: !perms.includes("w") && perms.endsWith("p") && path === exePath,
        anonymousKiB: 0,
        lockedKiB: 0,
      };
      continue;
    }
    if (!current) continue;
    const field = /^(Rss|Anonymous|Locked):\s+(\d+) kB/.exec(line);
    if (!field) continue;
    const kib = Number(field[2]);
    if (field[1] === "Rss") current.rssKiB = kib;
    else if (field[1] === "Anonymous") current.anonymousKiB = kib;
    else current.lockedKiB = kib;
  }
  finish();
  return ranges;
}

/** Releases the code pages; answers how many KiB were resident in the ranges it dropped. */
export type CodePageRelease = () => number;

const MADV_DONTNEED = 4;

/**
 * The release for this process, or why there is none. Linux only: elsewhere nothing like it is needed or safe to assume.
 * madvise comes from the C library through bun:ffi, opened by its soname (a daemon whose environment an attacker
 * controls is lost anyway: LD_LIBRARY_PATH could replace far more than this).
 */
export async function codePageRelease(): Promise<CodePageRelease | string> {
  if (process.platform !== "linux") return `not on ${process.platform}`;
  let exePath: string;
  try {
    // Spelled as smaps spells the same file, " (deleted)" included once an upgrade has renamed a new binary over it (the
    // pages then come back from the old file, which the mapping keeps alive). Paths, not device and inode: on overlayfs
    // smaps reports the underlying file's.
    exePath = readlinkSync("/proc/self/exe");
  } catch (error) {
    return `cannot read /proc/self/exe: ${(error as Error).message}`;
  }
  const madvise = await openMadvise();
  if (typeof madvise === "string") return madvise;
  return () => {
    let released = 0;
    for (const range of releasableRanges(readFileSync("/proc/self/smaps", "utf8"), exePath)) {
      // The kernel refills a dropped page from the file on its next touch (a minor fault while it stays cached).
      if (madvise(range.start, range.length, MADV_DONTNEED) === 0) released += range.rssKiB;
    }
    return released;
  };
}

type Madvise = (start: bigint, length: bigint, advice: number) => number;

/** madvise(2) from glibc or musl, whichever this build runs on. */
async function openMadvise(): Promise<Madvise | string> {
  const { dlopen, FFIType } = await import("bun:ffi");
  const arch = process.arch === "arm64" ? "aarch64" : "x86_64";
  const failures: string[] = [];
  for (const name of ["libc.so.6", `libc.musl-${arch}.so.1`, `/lib/ld-musl-${arch}.so.1`]) {
    try {
      const library = dlopen(name, { madvise: { args: [FFIType.u64, FFIType.u64, FFIType.i32], returns: FFIType.i32 } });
      return (start, length, advice) => library.symbols.madvise(start, length, advice) as number;
    } catch (error) {
      failures.push(`${name}: ${(error as Error).message}`);
    }
  }
  return `no C library to call madvise from (${failures.join("; ")})`;
}
