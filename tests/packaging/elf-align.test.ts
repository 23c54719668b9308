// Segment alignment of Linux binaries (scripts/elf-align.ts) on a synthetic ELF laid out like Bun's: every byte kept, every offset on the grid.
import { describe, expect, test } from "bun:test";
import { alignElfSegments, ElfLayoutError, isWellPlaced, loadSegments, SEGMENT_ALIGNMENT } from "../../scripts/elf-align.ts";

interface Section {
  name: string;
  type: number;
  flags: number;
  addr: number;
  offset: number;
  size: number;
}

/**
 * An ELF64 executable as Bun's linux-x64 runtime is laid out, scaled down: a read-only segment holding the headers at
 * offset 0, code 32 KiB off the 64 KiB grid sharing its first page with the segment before, data sharing a page with
 * the code, then non-loaded sections and the section table. Every byte carries a pattern so a misplaced one shows.
 */
function syntheticElf(): { bytes: Uint8Array; sections: Section[] } {
  const base = 0x200000;
  const loads = [
    { offset: 0, vaddr: base, filesz: 0x1764, memsz: 0x1764, flags: 4 },
    { offset: 0x1d00, vaddr: base + 0x8000 + 0x1d00, filesz: 0x3000, memsz: 0x3000, flags: 5 },
    { offset: 0x4d00, vaddr: base + 0x9000 + 0x4d00, filesz: 0x800, memsz: 0x1000, flags: 6 },
  ];
  const sections: Section[] = [
    { name: "", type: 0, flags: 0, addr: 0, offset: 0, size: 0 },
    { name: ".rodata", type: 1, flags: 2, addr: base + 0x200, offset: 0x200, size: 0x1564 },
    { name: ".text", type: 1, flags: 6, addr: base + 0x9d00, offset: 0x1d00, size: 0x3000 },
    { name: ".data", type: 1, flags: 3, addr: base + 0xdd00, offset: 0x4d00, size: 0x800 },
    { name: ".bss", type: 8, flags: 3, addr: base + 0xe500, offset: 0x5500, size: 0x800 },
    { name: ".comment", type: 1, flags: 0, addr: 0, offset: 0x5500, size: 0x40 },
    { name: ".shstrtab", type: 3, flags: 0, addr: 0, offset: 0x5540, size: 0x40 },
  ];
  const shoff = 0x5580;
  const bytes = new Uint8Array(shoff + sections.length * 64);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + 7) & 0xff;
  const view = new DataView(bytes.buffer);
  const u64 = (at: number, value: number): void => view.setBigUint64(at, BigInt(value), true);
  bytes.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], 0);
  view.setUint16(0x10, 2, true); // ET_EXEC
  view.setUint16(0x12, 62, true); // x86-64
  u64(0x20, 64);
  u64(0x28, shoff);
  view.setUint16(0x34, 64, true);
  view.setUint16(0x36, 56, true);
  view.setUint16(0x38, loads.length + 2, true);
  view.setUint16(0x3a, 64, true);
  view.setUint16(0x3c, sections.length, true);
  const phdr = (i: number, type: number, flags: number, offset: number, vaddr: number, filesz: number, memsz: number): void => {
    const at = 64 + i * 56;
    view.setUint32(at, type, true);
    view.setUint32(at + 4, flags, true);
    u64(at + 8, offset);
    u64(at + 16, vaddr);
    u64(at + 24, vaddr);
    u64(at + 32, filesz);
    u64(at + 40, memsz);
    u64(at + 48, 0x1000);
  };
  phdr(0, 6, 4, 64, base + 64, 5 * 56, 5 * 56); // PT_PHDR
  loads.forEach((l, i) => phdr(i + 1, 1, l.flags, l.offset, l.vaddr, l.filesz, l.memsz));
  phdr(4, 0x6474e551, 6, 0, 0, 0, 0); // PT_GNU_STACK
  sections.forEach((s, i) => {
    const at = shoff + i * 64;
    view.setUint32(at, i, true);
    view.setUint32(at + 4, s.type, true);
    u64(at + 8, s.flags);
    u64(at + 16, s.addr);
    u64(at + 24, s.offset);
    u64(at + 32, s.size);
  });
  return { bytes, sections };
}

const sectionOffsets = (bytes: Uint8Array): number[] => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const shoff = Number(view.getBigUint64(0x28, true));
  return Array.from({ length: view.getUint16(0x3c, true) }, (_, i) => Number(view.getBigUint64(shoff + i * 64 + 24, true)));
};

describe("alignElfSegments", () => {
  test("puts every loadable segment on the 64 KiB grid, off the 2 MiB one, and keeps its bytes", () => {
    const { bytes } = syntheticElf();
    const before = loadSegments(bytes) ?? [];
    expect(before.some((s) => s.offset % SEGMENT_ALIGNMENT !== s.vaddr % SEGMENT_ALIGNMENT)).toBe(true);
    const result = alignElfSegments(bytes);
    const after = loadSegments(result.bytes) ?? [];
    expect(after.map((s) => (s.vaddr - s.offset) % SEGMENT_ALIGNMENT)).toEqual([0, 0, 0]);
    // The first segment cannot move (it holds the ELF header at offset 0); every other one is off the 2 MiB grid.
    expect(after.slice(1).map(isWellPlaced)).toEqual([true, true]);
    expect(after.slice(1).map((s) => (s.vaddr - s.offset) % (2 * 1024 * 1024) !== 0)).toEqual([true, true]);
    // Addresses and sizes are untouched; only offsets moved.
    expect(after.map(({ vaddr, filesz, memsz }) => ({ vaddr, filesz, memsz }))).toEqual(
      before.map(({ vaddr, filesz, memsz }) => ({ vaddr, filesz, memsz })),
    );
    for (const [i, seg] of after.entries()) {
      const old = before[i] as (typeof before)[number];
      // The first segment holds the ELF header and program headers, whose offsets were rewritten: compare past them.
      const skip = i === 0 ? 64 + 5 * 56 : 0;
      expect(Buffer.from(result.bytes.subarray(seg.offset + skip, seg.offset + seg.filesz))).toEqual(
        Buffer.from(bytes.subarray(old.offset + skip, old.offset + old.filesz)),
      );
    }
    expect(result.grownBy).toBe(result.bytes.length - bytes.length);
    expect(result.moved.length).toBe(2);
  });

  test("moves every section's bytes with its segment, the non-loaded ones and the section table with the file's tail", () => {
    const { bytes, sections } = syntheticElf();
    const result = alignElfSegments(bytes);
    const offsets = sectionOffsets(result.bytes);
    for (const [i, section] of sections.entries()) {
      if (section.type === 0 || section.type === 8) continue;
      expect({ name: section.name, bytes: Buffer.from(result.bytes.subarray(offsets[i], (offsets[i] as number) + section.size)) }).toEqual({
        name: section.name,
        bytes: Buffer.from(bytes.subarray(section.offset, section.offset + section.size)),
      });
    }
    // Sections found by address moved with their segment: .text by the code segment's shift, .data by the data's.
    const shifts = (loadSegments(result.bytes) ?? []).map((s, i) => s.offset - ((loadSegments(bytes) ?? [])[i]?.offset ?? 0));
    expect(offsets[2]).toBe(0x1d00 + (shifts[1] as number));
    expect(offsets[3]).toBe(0x4d00 + (shifts[2] as number));
  });

  test("is idempotent, and leaves aligned files, non-ELF files and empty input as they are", () => {
    const once = alignElfSegments(syntheticElf().bytes).bytes;
    const twice = alignElfSegments(once);
    expect(twice.moved).toEqual([]);
    expect(twice.bytes).toBe(once);
    const macho = new Uint8Array(4096).fill(1);
    macho.set([0xcf, 0xfa, 0xed, 0xfe]);
    expect(alignElfSegments(macho).bytes).toBe(macho);
    expect(alignElfSegments(new Uint8Array(0)).moved).toEqual([]);
    expect(loadSegments(macho)).toBeNull();
  });

  test("moves a segment that sits on the 64 KiB grid but also on the 2 MiB one, where 2 MiB folios would be mapped whole", () => {
    const { bytes } = syntheticElf();
    const view = new DataView(bytes.buffer);
    // The code segment's address moved 32 KiB down: address − offset becomes exactly 2 MiB.
    const at = 64 + 2 * 56;
    view.setBigUint64(at + 16, view.getBigUint64(at + 16, true) - 0x8000n, true);
    const code = (loadSegments(bytes) ?? [])[1] as { offset: number; vaddr: number };
    expect(code.vaddr - code.offset).toBe(2 * 1024 * 1024);
    expect(isWellPlaced(code)).toBe(false);
    const moved = (loadSegments(alignElfSegments(bytes).bytes) ?? [])[1] as { offset: number; vaddr: number };
    expect(moved.vaddr).toBe(code.vaddr);
    expect(isWellPlaced(moved)).toBe(true);
  });

  test("refuses, with a reason, an ELF it cannot move safely", () => {
    const { bytes } = syntheticElf();
    // Truncated: the section table now lies past the end.
    expect(() => alignElfSegments(bytes.subarray(0, 0x5000))).toThrow(ElfLayoutError);
    // A segment whose offset and address disagree within the page cannot be mapped by anyone: refused, not "fixed".
    const bad = bytes.slice();
    new DataView(bad.buffer).setBigUint64(64 + 2 * 56 + 8, 0x1d08n, true);
    expect(() => alignElfSegments(bad)).toThrow(/not page-congruent/);
  });
});
