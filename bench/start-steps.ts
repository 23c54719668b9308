// Where serve's start-up time goes: the steps the daemon times itself (its DEBUG line "start-up steps"), and what each start cost the machine.
import { join } from "node:path";
import { type StartCost, startBinary } from "./servers.ts";
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

/**
 * What the timed starts cost, ours beside the features floor's: CPU (median), the kernel's share of the ticks summed over
 * every start (one start is a few 10 ms ticks), page faults (median). Where a start's CPU is about its exec → /healthz, it
 * was CPU-bound, not waiting; the faults are the memory it touched for the first time, each a trip through the kernel.
 */
export function describeStartCost(ours: readonly StartCost[], floor: readonly StartCost[]): string {
  const of = (costs: readonly StartCost[]): string => {
    const ticks = costs.reduce((sum, c) => sum + c.userMs + c.systemMs, 0);
    const kernel = ticks > 0 ? `${Math.round((100 * costs.reduce((sum, c) => sum + c.systemMs, 0)) / ticks)}%` : "—";
    const faults = Math.round(median(costs.map((c) => c.faults))).toLocaleString("en-US");
    return `${median(costs.map((c) => c.cpuMs)).toFixed(1)} ms of CPU (${kernel} of it in the kernel), ${faults} page faults`;
  };
  return `what a start cost, read at its first /healthz 200 (/proc/<pid>/stat and schedstat; medians of the ${ours.length} timed starts, the kernel's share over all of them): hermes-mcp ${of(ours)}, both images of the relaunch; the features floor ${of(floor)}`;
}
