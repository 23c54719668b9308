// What a quiet daemon gives back, for its idle collector: SQLite's page cache, the JS heap and JavaScriptCore's unused memory, then its code pages.
import type { Database } from "bun:sqlite";
import { type CodePageRelease, codePageRelease } from "./code-pages.ts";
import type { IdleWork } from "./idle-collector.ts";
import type { Logger, LogFields } from "./log.ts";

/**
 * The collection and the release idleCollector runs (serve's, and the bench's features floor, so the floor keeps no
 * more than the daemon would). `ownWork`, at the start of each collection, is the caller's own quiet work: what it
 * returns joins the debug line.
 */
export function memoryGiveBack(
  db: Database,
  log: Pick<Logger, "debug">,
  ownWork: () => LogFields = () => ({}),
): Required<Pick<IdleWork, "collect" | "release">> {
  let pages: Promise<CodePageRelease | string> | null = null;
  return {
    collect: () => {
      const fields = ownWork();
      try {
        db.exec("PRAGMA shrink_memory");
      } catch (error) {
        log.debug("could not shrink SQLite's cache", { error: (error as Error).message });
      }
      Bun.gc(true);
      // Then JavaScriptCore's own unused memory, when it is next idle (measured: after the memory bench's load, the
      // anonymous memory left drops from ≈ 20 to ≈ 16 MiB; deprecated in the typings, still Bun's only way to ask this).
      // It drops the compiled code too: the first sync call after a quiet spell took 7–10 ms longer with it, the few
      // after it ≈ 2 ms (bench/after-quiet.ts), against 8 MiB less anonymous memory after the bench's load. Kept.
      Bun.shrink();
      // What stays after the memory bench's load (+3.7–4.2 MiB anonymous) sits in mimalloc's arena (+3.8 MiB of it in
      // that one 1 GiB reservation, by /proc/<pid>/smaps before and after), mostly its 16 KiB size class (in use 3.1 →
      // 10.5 MiB, Bun.unsafe.mimallocDump): JavaScriptCore's heap blocks are that size (its capacity 3.2 → 4.5 MB,
      // bun:jsc heapStats). It grows with how many sync calls were in flight at once (1,000 held calls: +3.0–4.5 MiB in
      // use; 300: +0.6), not with gateway concurrency; with the JIT off that class goes back to its idle size, yet RSS
      // grows alike (+2.7 MiB). Measured without effect: MIMALLOC_PURGE_DELAY=0, MIMALLOC_PAGE_FULL_RETAIN=0,
      // MIMALLOC_ARENA_EAGER_COMMIT=0, MIMALLOC_PAGE_COMMIT_ON_DEMAND=1, mimalloc 3.5's purge_holes options at their
      // most eager, gcAndSweep() here. mimalloc's own collect is out of reach: the runtime exports none of its symbols.
      log.debug("quiet: memory given back", fields);
    },
    // Code run once (start-up, a burst's rare paths, the JIT's compilers) stays mapped until the kernel needs the memory;
    // dropped here, idle RSS is what idling touches (measured: 43 → 18–20 MiB idle, 52 → 22–24 after the memory bench's load).
    release: () => {
      // Prepared on first use: bun:ffi and the C library load only in a process that has gone quiet once.
      const first = pages === null;
      pages ??= codePageRelease();
      pages
        .then((releasePages) => {
          if (typeof releasePages !== "string") {
            log.debug("quiet: code pages handed back", { mib: Math.round(releasePages() / 102.4) / 10 });
          } else if (first) log.debug("code pages stay mapped", { reason: releasePages });
        })
        .catch((error: Error) => log.debug("could not hand code pages back", { error: error.message }));
    },
  };
}
