// Runs one stress script (bun run soak / crashloop / fuzz) in its short CI form and returns its exit code, output and result line.
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

export interface ScriptRun {
  code: number;
  output: string;
  /** The script's closing STRESS-RESULT line, parsed. */
  result: { violations: number; first: string[]; [field: string]: unknown };
}

export async function runStressScript(script: "soak" | "crashloop" | "fuzz", args: string[]): Promise<ScriptRun> {
  const proc = Bun.spawn([process.execPath, join(ROOT, "stress", `${script}.ts`), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: process.env.TMPDIR ?? "/tmp" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const output = `${stdout}\n${stderr}`;
  const line = stdout.split("\n").find((l) => l.startsWith("STRESS-RESULT "));
  if (!line) throw new Error(`${script} printed no STRESS-RESULT line (exit ${code}):\n${output}`);
  return { code, output, result: JSON.parse(line.slice("STRESS-RESULT ".length)) };
}
