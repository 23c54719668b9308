// The benchmark table: one row per metric (ours, floor or baseline, ratio, target, met?), printed and written to bench/RESULTS.md.
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";

export interface Row {
  metric: string;
  ours: string;
  baseline: string;
  ratio: string;
  target: string;
  /** null when the row is informational (no target). */
  met: boolean | null;
}

const HEAD = ["metric", "ours", "floor / baseline", "ratio", "target", "met?"];
const cells = (row: Row): string[] => [
  row.metric,
  row.ours,
  row.baseline,
  row.ratio,
  row.target,
  row.met === null ? "—" : row.met ? "yes" : "NO",
];

export function printTable(rows: Row[]): void {
  const all = [HEAD, ...rows.map(cells)];
  const widths = HEAD.map((_, i) => Math.max(...all.map((r) => (r[i] as string).length)));
  for (const r of all)
    console.log(
      r
        .map((c, i) => c.padEnd(widths[i] as number))
        .join("  ")
        .trimEnd(),
    );
}

export interface Machine {
  nproc: number;
  memoryGiB: string;
  cpu: string;
  bun: string;
  node: string | null;
  commit: string;
  date: string;
}

export function describeMachine(root: string): Machine {
  const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: root }).stdout.toString().trim();
  const dirty = Bun.spawnSync(["git", "status", "--porcelain"], { cwd: root }).stdout.toString().trim() !== "";
  const node = Bun.which("node");
  let cpu = cpus()[0]?.model ?? "unknown";
  try {
    cpu = /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? cpu;
  } catch {}
  return {
    nproc: cpus().length,
    memoryGiB: (totalmem() / 1024 ** 3).toFixed(1),
    cpu,
    bun: Bun.version,
    node: node ? Bun.spawnSync([node, "--version"]).stdout.toString().trim() : null,
    commit: `${commit}${dirty ? " (with uncommitted changes)" : ""}`,
    date: new Date().toISOString(),
  };
}

export function writeResults(path: string, machine: Machine, settings: string, rows: Row[], notes: string[]): void {
  // Columns padded as the formatter pads them, so a fresh RESULTS.md passes `bun run format:check` as written.
  const table = [HEAD, ...rows.map(cells)].map((r) => r.map((c) => c.replace(/\|/g, "\\|")));
  const widths = HEAD.map((_, i) => Math.max(3, ...table.map((r) => (r[i] as string).length)));
  const line = (r: string[]): string => `| ${r.map((c, i) => c.padEnd(widths[i] as number)).join(" | ")} |`;
  const text = [
    "# Benchmark results",
    "",
    "Written by `bun run bench` (bench/run.ts). Every figure and its baseline come from the same run on the same machine;",
    "compare ratios, not absolute numbers, across machines.",
    "",
    `- date: ${machine.date}`,
    `- commit: ${machine.commit}`,
    `- machine: ${machine.nproc} CPUs (nproc), ${machine.memoryGiB} GiB memory, ${machine.cpu}`,
    `- runtimes: Bun ${machine.bun}${machine.node ? `, Node ${machine.node}` : ""}`,
    `- settings: ${settings}`,
    "",
    line(table[0] as string[]),
    line(widths.map((w) => "-".repeat(w))),
    ...table.slice(1).map(line),
    "",
    ...notes.map((n) => `- ${n}`),
    "",
  ].join("\n");
  writeFileSync(path, text);
}
