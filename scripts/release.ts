// `bun run release` (every platform) and `bun run build` (this machine only): compiled binaries in dist/, their SHA256SUMS, the service units and install.sh.
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { BUILD_FLAGS } from "./build-flags.ts";
import { alignElfFile } from "./elf-align.ts";
import { hostTarget, RELEASE_TARGETS, type ReleaseTarget } from "./targets.ts";
import { renderPackagedUnits } from "../src/cli/service-units.ts";

const ROOT = join(import.meta.dir, "..");
/** Which functions a served session runs, recorded by `bun run build:profile`: laid out together, fewer pages touched. */
const BYTECODE_ORDER = join(ROOT, "packaging", "bytecode-order.txt");

const { values } = parseArgs({
  options: {
    host: { type: "boolean", default: false },
    only: { type: "string" },
    out: { type: "string", default: join(ROOT, "dist") },
    // Build without the recorded layout (what `build:profile` runs to record a new one).
    "no-bytecode-order": { type: "boolean", default: false },
    // Leave Linux binaries as Bun lays them out (what the bench compares the aligned build with).
    "no-elf-align": { type: "boolean", default: false },
    jobs: { type: "string", default: "2" },
  },
});

function fail(message: string): never {
  process.stderr.write(`release: ${message}\n`);
  process.exit(1);
}

/** The commit built: HERMES_MCP_COMMIT when set (a tarball build), else git's, marked -dirty when the tree has changes. */
function commit(): string {
  if (process.env.HERMES_MCP_COMMIT) return process.env.HERMES_MCP_COMMIT;
  const head = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: ROOT, stderr: "ignore" });
  if (head.exitCode !== 0) return "unknown";
  const dirty = Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=no"], { cwd: ROOT, stderr: "ignore" });
  return `${head.stdout.toString().trim()}${dirty.stdout.toString().trim() ? "-dirty" : ""}`;
}

async function build(target: ReleaseTarget, outfile: string, buildCommit: string): Promise<void> {
  const defines = [
    `--define=HERMES_MCP_BUILD_COMMIT=${JSON.stringify(buildCommit)}`,
    `--define=HERMES_MCP_BUILD_TARGET=${JSON.stringify(target.name)}`,
  ];
  // A profile from an older build still applies (Bun's docs), and to every target: it names functions, not addresses.
  const order = !values["no-bytecode-order"] && existsSync(BYTECODE_ORDER) ? [`--bytecode-order=${BYTECODE_ORDER}`] : [];
  const proc = Bun.spawn(
    [process.execPath, "build", ...BUILD_FLAGS, ...order, `--target=${target.bunTarget}`, ...defines, "src/cli/index.ts", "--outfile", outfile],
    { cwd: ROOT, stdout: "pipe", stderr: "pipe" },
  );
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== 0) fail(`building ${target.name} failed:\n${stderr}`);
  // Linux: segments moved onto the kernel's fault-around grid, ≈ 5 MiB less idle RSS (scripts/elf-align.ts says why).
  if (target.bunTarget.startsWith("bun-linux") && !values["no-elf-align"]) await alignElfFile(outfile);
}

const sha256 = (path: string): string => createHash("sha256").update(readFileSync(path)).digest("hex");

const out = values.out;
const buildCommit = commit();
const started = performance.now();

if (values.host) {
  // `bun run build`: this machine's binary as dist/hermes-mcp, as before.
  const target = hostTarget();
  if (!target) fail(`no release target for ${process.platform}-${process.arch}`);
  mkdirSync(out, { recursive: true });
  await build(target, join(out, "hermes-mcp"), buildCommit);
  process.stderr.write(`built ${join(out, "hermes-mcp")} (${target.name}, commit ${buildCommit})\n`);
  process.exit(0);
}

const wanted = values.only ? values.only.split(",").map((name) => name.trim()) : RELEASE_TARGETS.map((t) => t.name);
const targets = wanted.map((name) => RELEASE_TARGETS.find((t) => t.name === name) ?? fail(`unknown target "${name}"`));
const EXTRAS = ["SHA256SUMS", "install.sh", "LICENSE", ...Object.keys(renderPackagedUnits())];
// Only what a release writes is cleared (a stale binary must not sit beside new SHA256SUMS); never the whole folder.
mkdirSync(out, { recursive: true });
for (const name of [...RELEASE_TARGETS.map((t) => t.file), ...EXTRAS]) rmSync(join(out, name), { force: true });

// A few builds at a time: each is one bun process, mostly single-threaded.
const queue = [...targets];
const workers = Array.from({ length: Math.max(1, Number(values.jobs) || 1) }, async () => {
  for (let target = queue.shift(); target; target = queue.shift()) {
    const began = performance.now();
    await build(target, join(out, target.file), buildCommit);
    process.stderr.write(`  ${target.file}  ${((performance.now() - began) / 1000).toFixed(1)} s\n`);
  }
});
await Promise.all(workers);

for (const [name, text] of Object.entries(renderPackagedUnits())) writeFileSync(join(out, name), text);
copyFileSync(join(ROOT, "packaging", "install.sh"), join(out, "install.sh"));
if (existsSync(join(ROOT, "LICENSE"))) copyFileSync(join(ROOT, "LICENSE"), join(out, "LICENSE"));

// sha256sum's own format (two spaces, binary names only), so `sha256sum -c --ignore-missing SHA256SUMS` checks a download.
const sums = targets.map((t) => `${sha256(join(out, t.file))}  ${t.file}\n`).join("");
writeFileSync(join(out, "SHA256SUMS"), sums);
process.stderr.write(`dist ready in ${out}: ${targets.length} binaries (commit ${buildCommit}) in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
