// Load generator for the benchmarks: wrk when installed (apt-get install wrk), else a Bun fetch loop in its own process.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface LoadSpec {
  url: string;
  body: string;
  headers: Record<string, string>;
  seconds: number;
  connections: number;
}

export interface LoadResult {
  rps: number;
  tool: "wrk" | "bun";
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  if (Bun.which("wrk")) return { rps: await runWrk(spec), tool: "wrk" };
  return { rps: await runBunLoop(spec), tool: "bun" };
}

async function runWrk(spec: LoadSpec): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "hermes-mcp-bench-"));
  const script = join(dir, "post.lua");
  const headerLines = Object.entries(spec.headers)
    .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
    .join("\n");
  writeFileSync(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(spec.body)}\n${headerLines}\n`);
  const proc = Bun.spawn(["wrk", "-t1", `-c${spec.connections}`, `-d${spec.seconds}s`, "-s", script, spec.url], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (non2xx) throw new Error(`wrk saw ${non2xx[1]} failed responses from ${spec.url}:\n${out}`);
  const match = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (!match) throw new Error(`wrk output not understood:\n${out}`);
  return Number(match[1]);
}

async function runBunLoop(spec: LoadSpec): Promise<number> {
  const code = `
    const spec = ${JSON.stringify(spec)};
    let done = 0; const end = Date.now() + spec.seconds * 1000;
    await Promise.all(Array.from({ length: spec.connections }, async () => {
      while (Date.now() < end) {
        const r = await fetch(spec.url, { method: "POST", headers: spec.headers, body: spec.body });
        await r.arrayBuffer(); if (!r.ok) throw new Error("status " + r.status); done++;
      }
    }));
    console.log(done / spec.seconds);`;
  const proc = Bun.spawn([process.execPath, "-e", code], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return Number(out.trim());
}
