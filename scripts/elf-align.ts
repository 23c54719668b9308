// Re-lays out a Linux executable so each loadable segment's file offset is congruent to its address modulo 64 KiB, not 2 MiB.
import { chmodSync, renameSync, statSync } from "node:fs";

/*
 * Why: Linux (6.x) caches a freshly written file in large folios (64 KiB when Bun or cp writes it) and, on a page
 * fault, maps a 64 KiB window of the address space around the fault (fault-around), whole folios at a time. Bun's
 * runtime links its code 32 KiB off that grid (address − offset = 2 MiB + 32 KiB on linux-x64), so each window
 * straddles two folios and maps both: the same bytes idle at ~50 MiB RSS when the page cache holds them in 64 KiB
 * folios, ~44 MiB in 4 KiB pages (measured; the closing note of issue 11). With offsets congruent to addresses modulo
 * the window, a window covers whole folios and nothing beyond them; kept off the 2 MiB grid (isWellPlaced), a 2 MiB
 * folio is never mapped whole either. Only file offsets change: every address, and every byte the program sees, stays
 * the same. Builds already placed so (linux-arm64) are left as they are.
 */

const ELF_MAGIC = 0x464c457f; // "\x7fELF", little-endian
const PT_LOAD = 1;
const PAGE = 4096;
/** The kernel's fault-around window (mm/memory.c fault_around_bytes, 64 KiB by default). */
export const SEGMENT_ALIGNMENT = 64 * 1024;
/** A PMD: a segment whose address − offset is a multiple of it can have 2 MiB folios mapped whole, 2 MiB at a time. */
const PMD_SIZE = 2 * 1024 * 1024;
const mod = (n: number, m: number): number => ((n % m) + m) % m;

/**
 * On the fault-around grid, and deliberately off the 2 MiB one: a file written in one large write is cached in 2 MiB
 * folios, and a segment congruent modulo 2 MiB then gets them mapped whole (measured: the code mapping 59.7 MiB
 * instead of 26.5). The first segment holds the ELF header at offset 0 and cannot move; it is never judged.
 */
export function isWellPlaced(segment: { offset: number; vaddr: number }): boolean {
  const gap = segment.vaddr - segment.offset;
  return mod(gap, SEGMENT_ALIGNMENT) === 0 && mod(gap, PMD_SIZE) !== 0;
}

export interface Segment {
  /** Index of its program header. */
  index: number;
  offset: number;
  vaddr: number;
  filesz: number;
  memsz: number;
}

export interface AlignResult {
  bytes: Uint8Array;
  /** What changed: segments moved and bytes added; empty when the file was already aligned. */
  moved: { vaddr: number; from: number; to: number }[];
  grownBy: number;
}

export class ElfLayoutError extends Error {}

const num = (view: DataView, at: number): number => {
  const value = view.getBigUint64(at, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ElfLayoutError(`ELF field at ${at} is out of range`);
  return Number(value);
};
const roundUp = (n: number, to: number): number => Math.ceil(n / to) * to;
const pageDown = (n: number): number => n - (n % PAGE);

/** The smallest well-placed offset for a segment at `vaddr` whose first page starts at or after `notBefore`. */
function placeSegment(vaddr: number, inPage: number, notBefore: number): number {
  // The segment's first page (its offset rounded down to a page) must not overwrite what precedes it in the new file.
  let offset = roundUp(notBefore, PAGE) + inPage;
  offset += mod(vaddr - offset, SEGMENT_ALIGNMENT);
  if (!isWellPlaced({ offset, vaddr })) offset += SEGMENT_ALIGNMENT;
  return offset;
}

/** Reads the new file's own headers back: each segment's and section's bytes as before, each segment aligned. */
function verifyMove(input: Uint8Array, output: Uint8Array): void {
  const old = new DataView(input.buffer, input.byteOffset, input.byteLength);
  const now = new DataView(output.buffer, output.byteOffset, output.byteLength);
  // The ELF header and the program header table are the loaded bytes meant to change (their offsets): compared blanked.
  const phoff = num(old, 0x20);
  const changed = [
    [0, 64],
    [phoff, phoff + old.getUint16(0x38, true) * 56],
  ] as const;
  const blank = (bytes: Uint8Array, at: number): Uint8Array => {
    const copy = bytes.slice();
    for (const [from, to] of changed) {
      const [start, end] = [Math.max(from - at, 0), Math.min(to - at, copy.length)];
      if (start < end) copy.fill(0, start, end);
    }
    return copy;
  };
  const same = (from: number, to: number, size: number): boolean =>
    to + size <= output.length &&
    Buffer.compare(blank(input.subarray(from, from + size), from), blank(output.subarray(to, to + size), to)) === 0;
  for (let i = 0; i < old.getUint16(0x38, true); i++) {
    const at = phoff + i * 56;
    const from = num(old, at + 8);
    const to = num(now, at + 8);
    const size = num(old, at + 32);
    if (!same(from, to, size)) throw new ElfLayoutError(`program header ${i}'s bytes did not survive the move`);
    if (old.getUint32(at, true) === PT_LOAD && from !== 0 && !isWellPlaced({ offset: to, vaddr: num(old, at + 16) })) {
      throw new ElfLayoutError(`segment ${i} is still misplaced`);
    }
  }
  const [oldShoff, newShoff] = [num(old, 0x28), num(now, 0x28)];
  for (let i = 0; i < old.getUint16(0x3c, true); i++) {
    const type = old.getUint32(oldShoff + i * 64 + 4, true);
    if (type === 0 || type === 8) continue; // SHT_NULL, SHT_NOBITS: no bytes in the file
    const size = num(old, oldShoff + i * 64 + 32);
    if (!same(num(old, oldShoff + i * 64 + 24), num(now, newShoff + i * 64 + 24), size)) {
      throw new ElfLayoutError(`section ${i}'s bytes did not survive the move`);
    }
  }
}

interface ElfTables {
  view: DataView;
  phoff: number;
  phnum: number;
  shoff: number;
  shnum: number;
  /** The loadable segments, in file order. */
  loads: Segment[];
}

/** The header tables of a 64-bit little-endian ELF file, or null for anything else (Mach-O, PE, not an executable). */
function readElf(input: Uint8Array): ElfTables | null {
  if (input.length < 64) return null;
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  // Only 64-bit (EI_CLASS 2), little-endian (EI_DATA 1) ELF files: every Linux target a release ships.
  if (view.getUint32(0, true) !== ELF_MAGIC || input[4] !== 2 || input[5] !== 1) return null;
  const phoff = num(view, 0x20);
  const shoff = num(view, 0x28);
  const phnum = view.getUint16(0x38, true);
  const shnum = view.getUint16(0x3c, true);
  if (view.getUint16(0x36, true) !== 56 || (shnum > 0 && view.getUint16(0x3a, true) !== 64)) {
    throw new ElfLayoutError("unexpected ELF header entry sizes");
  }
  if (phoff + phnum * 56 > input.length || shoff + shnum * 64 > input.length) {
    throw new ElfLayoutError("ELF header tables lie outside the file");
  }
  const loads: Segment[] = [];
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * 56;
    if (view.getUint32(at, true) !== PT_LOAD) continue;
    loads.push({ index: i, offset: num(view, at + 8), vaddr: num(view, at + 16), filesz: num(view, at + 32), memsz: num(view, at + 40) });
  }
  loads.sort((x, y) => x.offset - y.offset);
  return { view, phoff, phnum, shoff, shnum, loads };
}

/** The loadable segments of an ELF executable (null when `input` is not one): what tests and the bench check. */
export function loadSegments(input: Uint8Array): Segment[] | null {
  return readElf(input)?.loads ?? null;
}

/**
 * Returns the file re-laid out, or the same bytes when there is nothing to do (already aligned, not a 64-bit
 * little-endian ELF executable). Throws ElfLayoutError when the file is an ELF this cannot safely move.
 */
export function alignElfSegments(input: Uint8Array): AlignResult {
  const unchanged: AlignResult = { bytes: input, moved: [], grownBy: 0 };
  const elf = readElf(input);
  if (!elf || elf.loads.length === 0) return unchanged;
  const { view, phoff, phnum, shoff, shnum, loads } = elf;
  for (let i = 0; i < loads.length; i++) {
    const seg = loads[i] as Segment;
    if (seg.offset % PAGE !== seg.vaddr % PAGE) throw new ElfLayoutError(`segment ${seg.index} is not page-congruent`);
    if (seg.offset + seg.filesz > input.length) throw new ElfLayoutError(`segment ${seg.index} runs past the end of the file`);
    const next = loads[i + 1];
    if (next && (next.vaddr < seg.vaddr || next.offset < seg.offset + seg.filesz - PAGE)) {
      throw new ElfLayoutError("loadable segments overlap or are out of address order");
    }
  }
  // The first segment holds the ELF header at offset 0: it cannot move, and must already be aligned for this to help.
  const first = loads[0] as Segment;
  if (first.offset !== 0) throw new ElfLayoutError("the first loadable segment does not start the file");
  if (loads.every((s) => s === first || isWellPlaced(s))) return unchanged;

  // Chunks of the old file, each copied whole with its segment's shift: a segment from its first page to the end of
  // its bytes (or to the next segment's first page, keeping whatever lies between). Two segments may share a page
  // in the old file; each gets its own copy of it in the new one.
  const chunks = loads.map((seg, i) => {
    const next = loads[i + 1];
    const start = i === 0 ? 0 : pageDown(seg.offset);
    const end = next ? Math.max(seg.offset + seg.filesz, pageDown(next.offset)) : input.length;
    return { seg, start, end, shift: 0 };
  });
  let written = 0;
  for (const chunk of chunks) {
    if (chunk.seg !== first) {
      const offset = placeSegment(chunk.seg.vaddr, chunk.seg.offset % PAGE, written);
      chunk.shift = offset - chunk.seg.offset;
    }
    written = chunk.end + chunk.shift;
  }
  const last = chunks[chunks.length - 1] as (typeof chunks)[number];
  const output = new Uint8Array(written);
  for (const chunk of chunks) output.set(input.subarray(chunk.start, chunk.end), chunk.start + chunk.shift);
  const out = new DataView(output.buffer);

  // A file offset moves with the segment whose address range holds it (program and section headers name both), or,
  // outside every segment (the section table, non-loaded sections), with the chunk it lies in.
  const byAddress = (vaddr: number): (typeof chunks)[number] | undefined =>
    chunks.find((c) => vaddr >= c.seg.vaddr && vaddr < c.seg.vaddr + Math.max(c.seg.memsz, 1));
  const byOffset = (offset: number): (typeof chunks)[number] =>
    chunks.findLast((c) => offset >= c.start && offset < Math.max(c.end, c.start + 1)) ?? last;
  const setNum = (at: number, value: number): void => out.setBigUint64(at, BigInt(value), true);

  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * 56;
    const offset = num(view, at + 8);
    const vaddr = num(view, at + 16);
    const filesz = num(view, at + 32);
    if (offset === 0 && filesz === 0) continue; // PT_GNU_STACK and the like name no bytes
    const owner = (vaddr !== 0 && byAddress(vaddr)) || byOffset(offset);
    setNum(at + 8, offset + owner.shift);
  }
  const newShoff = shoff + byOffset(shoff).shift;
  for (let i = 0; i < shnum; i++) {
    const at = shoff + i * 64;
    const type = view.getUint32(at + 4, true);
    if (type === 0) continue; // SHT_NULL
    const flags = num(view, at + 8);
    const addr = num(view, at + 16);
    const offset = num(view, at + 24);
    const alloc = (flags & 0x2) !== 0; // SHF_ALLOC: part of the program image, found by address
    const owner = (alloc && addr !== 0 && byAddress(addr)) || byOffset(offset);
    setNum(newShoff + i * 64 + 24, offset + owner.shift);
  }
  setNum(0x28, newShoff);
  verifyMove(input, output);
  return {
    bytes: output,
    moved: chunks.filter((c) => c.shift !== 0).map((c) => ({ vaddr: c.seg.vaddr, from: c.seg.offset, to: c.seg.offset + c.shift })),
    grownBy: output.length - input.length,
  };
}

/** Aligns the executable at `path` in place (through a temporary file and a rename); returns what changed. */
export async function alignElfFile(path: string): Promise<AlignResult> {
  const result = alignElfSegments(new Uint8Array(await Bun.file(path).arrayBuffer()));
  if (result.moved.length === 0) return result;
  const temporary = `${path}.aligning`;
  await Bun.write(temporary, result.bytes);
  chmodSync(temporary, statSync(path).mode & 0o7777);
  renameSync(temporary, path);
  return result;
}
