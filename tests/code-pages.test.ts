// Handing code pages back: which mappings may go (only clean, never-written ones of the executable), and a process that released them keeps working.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { releasableRanges } from "../src/code-pages.ts";

const EXE = "/opt/hermes/hermes-mcp";

/** One smaps entry as the kernel prints it. */
const entry = (range: string, perms: string, path: string, fields: { rss: number; anonymous?: number; locked?: number }) =>
  [
    `${range} ${perms} 00000000 fe:00 5317157${path ? `                    ${path}` : ""}`,
    "Size:              20532 kB",
    `Rss:               ${fields.rss} kB`,
    "Pss:                9000 kB",
    `Anonymous:         ${fields.anonymous ?? 0} kB`,
    `Locked:            ${fields.locked ?? 0} kB`,
    "VmFlags: rd ex mr mw me",
  ].join("\n");

describe("releasableRanges", () => {
  test("takes the executable's read-only and executable private mappings, with what they had resident", () => {
    const smaps = [entry("00200000-01a39000", "r--p", EXE, { rss: 4900 }), entry("01a40000-0684a000", "r-xp", EXE, { rss: 25896 })].join(
      "\n",
    );
    expect(releasableRanges(smaps, EXE)).toEqual([
      { start: 0x200000n, length: 0x1a39000n - 0x200000n, rssKiB: 4900 },
      { start: 0x1a40000n, length: 0x684a000n - 0x1a40000n, rssKiB: 25896 },
    ]);
  });

  test("leaves every page that was ever written, locked, shared, another file's or not resident", () => {
    const smaps = [
      // RELRO: read-only now, but relocated at start-up: its copy-on-write pages would be lost.
      entry("06867000-0704d000", "r--p", EXE, { rss: 2220, anonymous: 120 }),
      entry("0704d000-0714d000", "rw-p", EXE, { rss: 1800, anonymous: 1800 }),
      entry("0714d000-0715d000", "r-xp", EXE, { rss: 64, locked: 64 }),
      entry("0715d000-0716d000", "r--s", EXE, { rss: 64 }),
      entry("7f9f45b17000-7f9f45c6d000", "r-xp", "/usr/lib/x86_64-linux-gnu/libc.so.6", { rss: 1176 }),
      entry("7f9e00000000-7f9f00000000", "rw-p", "", { rss: 508, anonymous: 508 }),
      entry("0716d000-0717d000", "r-xp", EXE, { rss: 0 }),
      // The same path with a suffix is another file.
      entry("0717d000-0718d000", "r-xp", `${EXE}.old`, { rss: 64 }),
    ].join("\n");
    expect(releasableRanges(smaps, EXE)).toEqual([]);
  });

  test("an anonymous mapping's fields are its own, with or without the space the kernel pads its header with", () => {
    const code = entry("01a40000-0684a000", "r-xp", EXE, { rss: 100 });
    // Written anonymous memory right after the code: were its header missed, its Anonymous line would land on the code.
    const heap = (header: string) =>
      [header, "Rss:                 64 kB", "Anonymous:           64 kB", "Locked:               0 kB"].join("\n");
    for (const header of ["0684a000-0685a000 rw-p 00000000 00:00 0", "0684a000-0685a000 rw-p 00000000 00:00 0 "]) {
      expect(releasableRanges(`${code}\n${heap(header)}`, EXE)).toEqual([
        { start: 0x1a40000n, length: 0x684a000n - 0x1a40000n, rssKiB: 100 },
      ]);
    }
  });

  test("matches the executable by the path /proc/self/exe gives, ' (deleted)' included after an upgrade renamed over it", () => {
    const deleted = `${EXE} (deleted)`;
    const smaps = entry("01a40000-0684a000", "r-xp", deleted, { rss: 100 });
    expect(releasableRanges(smaps, deleted)).toHaveLength(1);
    expect(releasableRanges(smaps, EXE)).toEqual([]);
  });

  test("an empty or unfamiliar smaps gives nothing to release", () => {
    expect(releasableRanges("", EXE)).toEqual([]);
    expect(releasableRanges("garbage\nRss: 12 kB\n", EXE)).toEqual([]);
  });
});

describe.if(process.platform === "linux")("codePageRelease, in a process of its own", () => {
  test("drops the executable's resident code, and everything still runs afterwards", () => {
    const script = `
      import { codePageRelease } from ${JSON.stringify(join(import.meta.dir, "..", "src", "code-pages.ts"))};
      const rssFile = () => Number(/RssFile:\\s+(\\d+)/.exec(require("node:fs").readFileSync("/proc/self/status", "utf8"))[1]);
      const release = await codePageRelease();
      if (typeof release === "string") throw new Error(release);
      const before = rssFile();
      const released = release();
      const after = rssFile();
      // Work that needs code just dropped: the parser, a hash, a server and a client over loopback.
      const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: async (r) => Response.json({ got: await r.json() }) });
      const answer = await (await fetch(server.url, { method: "POST", body: JSON.stringify({ n: 42 }) })).json();
      server.stop(true);
      const hash = new Bun.CryptoHasher("sha256").update("abc").digest("hex");
      console.log(JSON.stringify({ before, after, released, answer, hash }));
    `;
    const child = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    expect(child.exitCode, child.stderr.toString()).toBe(0);
    const result = JSON.parse(child.stdout.toString()) as {
      before: number;
      after: number;
      released: number;
      answer: unknown;
      hash: string;
    };
    // Bun's own code mapping holds tens of MiB once a process has started; what the release reports left the RSS.
    expect(result.released).toBeGreaterThan(4096);
    expect(result.after).toBeLessThan(result.before - 4096);
    expect(result.answer).toEqual({ got: { n: 42 } });
    expect(result.hash).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
