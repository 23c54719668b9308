// Dependencies point down only: scans every import under src/ and fails on one that reaches a higher layer (or crosses oauth ↔ mcp).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "..", "src");

/**
 * Higher imports lower. daemon.ts sits between cli (which starts it) and http; other top-level files (log.ts,
 * version.ts, …) sit at the bottom.
 */
const RANK: Record<string, number> = {
  cli: 7,
  "daemon.ts": 6,
  http: 5,
  oauth: 4,
  mcp: 4,
  jobs: 3,
  gateway: 2,
  messaging: 2,
  store: 1,
  config: 1,
  web: 1,
  crypto: 1,
};
const BOTTOM = 1;
/** Same-rank layers that must still not import each other. */
const PEERS: [string, string][] = [
  ["oauth", "mcp"],
  ["gateway", "messaging"],
];
/** daemon.ts wires every layer together, so it may import any of them. */
const EXEMPT = new Set(["daemon.ts"]);
/**
 * Known violations, each "from → to" with the reason it is tolerated. Empty: oauth → http (the body reader) was the
 * last one, removed by moving it to src/web/body.ts.
 */
const ALLOWED: ReadonlySet<string> = new Set<string>([]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/**
 * Every module specifier a file imports or re-exports: static, side-effect, type-only and dynamic imports; without
 * `dynamic` and `types`, only what loading the file loads at once.
 */
export function specifiers(source: string, { dynamic = true, types = true }: { dynamic?: boolean; types?: boolean } = {}): string[] {
  const found: string[] = [];
  const patterns = [
    types
      ? /\b(?:import|export)\b[^;'"]*?\bfrom\s*["']([^"']+)["']/g
      : /\b(?:import|export)\b(?!\s+type\b)[^;'"]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    ...(dynamic ? [/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g] : []),
  ];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1] as string);
  return found;
}

/** "oauth/form.ts" → "oauth"; "log.ts" → "log.ts". */
function layerOf(srcRelative: string): string {
  const [first] = srcRelative.split("/");
  return first as string;
}

function rankOf(layer: string): number {
  return RANK[layer] ?? BOTTOM;
}

/** Violations among `files` (path relative to src/ → source). */
function violationsIn(files: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [from, source] of Object.entries(files)) {
    const fromLayer = layerOf(from);
    if (EXEMPT.has(from)) continue;
    for (const spec of specifiers(source)) {
      if (!spec.startsWith(".")) continue;
      const target = relative(SRC, resolve(SRC, dirname(from), spec));
      if (target.startsWith("..")) continue; // outside src/ (package.json)
      const toLayer = layerOf(target);
      if (toLayer === fromLayer) continue;
      const upward = rankOf(toLayer) > rankOf(fromLayer);
      const crossPeers = PEERS.some(([a, b]) => (fromLayer === a && toLayer === b) || (fromLayer === b && toLayer === a));
      if ((upward || crossPeers) && !ALLOWED.has(`${fromLayer} → ${toLayer}`))
        found.push(`${from} imports ${target} (${fromLayer} → ${toLayer})`);
    }
  }
  return found;
}

describe("layering", () => {
  test("no module imports from a higher layer, and oauth and mcp do not import each other", () => {
    const files = Object.fromEntries(sourceFiles(SRC).map((file) => [relative(SRC, file), readFileSync(file, "utf8")]));
    expect(Object.keys(files).length).toBeGreaterThan(50);
    expect(violationsIn(files)).toEqual([]);
  });

  test("the check catches upward imports and oauth ↔ mcp, and lets daemon.ts and downward imports pass", () => {
    const found = violationsIn({
      "oauth/form.ts": 'import { readBodyLimited } from "../http/body.ts";',
      "mcp/tools.ts": 'import type { Grant } from "../oauth/grants.ts";',
      "gateway/client.ts": 'import { JobService } from "../jobs/service.ts";',
      "store/jobs.ts": 'import { log } from "../log.ts";',
      "http/app.ts": 'import { startDaemon } from "../daemon.ts";',
      "cli/serve.ts": 'import { startDaemon } from "../daemon.ts";',
      "daemon.ts": 'import { createApp } from "./http/app.ts";',
      "jobs/service.ts": 'import { GatewayError } from "../gateway/errors.ts";',
    });
    expect(found).toEqual([
      "oauth/form.ts imports http/body.ts (oauth → http)",
      "mcp/tools.ts imports oauth/grants.ts (mcp → oauth)",
      "gateway/client.ts imports jobs/service.ts (gateway → jobs)",
      "http/app.ts imports daemon.ts (http → daemon.ts)",
    ]);
  });

  test("the scanner sees multi-line, type-only, re-export, side-effect and dynamic imports", () => {
    const source = [
      'import {\n  a,\n  b,\n} from "../http/a.ts";',
      'import type { T } from "../mcp/t.ts";',
      'export { x } from "./x.ts";',
      'import "../cli/side.ts";',
      'const m = await import("../jobs/m.ts");',
    ].join("\n");
    expect(specifiers(source).sort()).toEqual(["../cli/side.ts", "../http/a.ts", "../jobs/m.ts", "../mcp/t.ts", "./x.ts"]);
  });
});

test("serve loads none of doctor's modules, nor its stop advice, when it starts (they load only when needed)", () => {
  const probe = Bun.spawnSync(
    [
      process.execPath,
      "-e",
      `await import(${JSON.stringify(join(SRC, "cli", "serve.ts"))}); console.log(JSON.stringify(Object.keys(require.cache)));`,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const loaded = (JSON.parse(probe.stdout.toString()) as string[]).map((path) => relative(SRC, path));
  expect(loaded).toContain(join("cli", "gateway-checks.ts"));
  expect(loaded.filter((path) => /^cli\/(doctor|stop-advice|root-guard|service)/.test(path))).toEqual([]);
});

test("the entry decides on serve's relaunch with no package loaded but Node's own (citty, zod and the settings' schema come after)", () => {
  // The first process of serve's relaunch runs only what src/cli/index.ts imports statically: every module there is
  // read and run twice per start. (A type-only import loads nothing.)
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of specifiers(readFileSync(file, "utf8"), { dynamic: false, types: false })) {
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
      else if (!specifier.startsWith("node:")) packages.add(specifier);
    }
  };
  visit(join(SRC, "cli", "index.ts"));
  expect([...packages]).toEqual([]);
  const files = [...seen].map((file) => relative(SRC, file)).sort();
  expect(files).toContain(join("cli", "relaunch.ts"));
  expect(files.filter((file) => /^(config\/(schema|load|names)|cli\/(main|argv|serve|root-guard))\.ts$/.test(file))).toEqual([]);
});
