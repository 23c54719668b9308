// Where serve's start-up time goes: the steps the daemon times itself (its DEBUG line "start-up steps"), over a few more starts.
import { join } from "node:path";
import { startBinary } from "./servers.ts";
import { median } from "./stats.ts";

const STARTS = 3;
const STEP_FIELD = /^(.+)_ms$/;

/**
 * Starts the binary STARTS more times (fresh HOMEs, as the timed starts) at LOG_LEVEL=DEBUG with JSON logs, reads each
 * start's "start-up steps" line, and says the median of each step. Those steps are counted inside the process that
 * answers; exec → /healthz also holds the relaunch's first process and its execve, and the bench's polling.
 */
export async function describeStartSteps(
  binary: string,
  newHome: () => Promise<{ home: string }>,
  env: Record<string, string>,
): Promise<string> {
  const logs: string[] = [];
  for (let i = 0; i < STARTS; i++) {
    const { home } = await newHome();
    const log = join(home, "start-steps.log");
    const daemon = await startBinary(binary, home, { ...env, LOG_LEVEL: "DEBUG", LOG_FORMAT: "json" }, log);
    await daemon.stop();
    logs.push(await Bun.file(log).text());
  }
  return `start-up steps inside the process that answers (the daemon's own "start-up steps" line, median of ${STARTS} more starts at LOG_LEVEL=DEBUG, ms): ${medianSteps(logs)}; the rest of exec → /healthz is the relaunch's first process and its execve (about one runtime start), and the polling`;
}

/** Each step's median over the daemons' JSON logs, in the order the first log lists them ("runtime 12.4, …, = total 57.1"). */
export function medianSteps(logs: readonly string[]): string {
  const runs = logs.map(stepsIn);
  const names = [...(runs[0]?.keys() ?? [])];
  return names
    .map((name) => `${name === "total" ? "= " : ""}${name} ${median(runs.map((run) => run.get(name) ?? Number.NaN)).toFixed(1)}`)
    .join(", ");
}

/** The step durations of a JSON log's "start-up steps" line, in their order; throws when the line is missing. */
function stepsIn(log: string): Map<string, number> {
  const line = log.split("\n").find((l) => l.includes('"msg":"start-up steps"'));
  if (!line) throw new Error(`no "start-up steps" line in the daemon's log:\n${log}`);
  const steps = new Map<string, number>();
  for (const [key, value] of Object.entries(JSON.parse(line) as Record<string, unknown>)) {
    const name = STEP_FIELD.exec(key)?.[1];
    if (name && typeof value === "number") steps.set(name, value);
  }
  return steps;
}
