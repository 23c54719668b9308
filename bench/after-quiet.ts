// What a sync hermes_ask adds when it is the first call after a quiet spell (the daemon has given memory back), and the calls right after it.
import { QUIET_MS, RELEASE_AFTER_MS } from "../src/idle-collector.ts";
import type { FakeGateway } from "../tests/support/fake-gateway.ts";
import { askBridge, askGateway } from "./latency.ts";
import type { Row } from "./report.ts";
import { median } from "./stats.ts";

/** Quiet spells waited out, each followed by one first call and NEXT_CALLS more. */
export const AFTER_QUIET_ROUNDS = 5;
const NEXT_CALLS = 3;

/**
 * Once quiet (QUIET_MS without a request) the daemon collects, asks JavaScriptCore to release what it keeps (its
 * compiled code included) and, RELEASE_AFTER_MS later, hands its code pages back (src/memory-give-back.ts): the next
 * call pays for running cold. Each round waits that out (and a second more), then times one call, the NEXT_CALLS after
 * it, and the same turn asked of the gateway directly; the row gives the medians over the direct call's.
 */
export async function measureAfterQuiet(
  bridgeUrl: string,
  token: string,
  gateway: FakeGateway,
  rounds = AFTER_QUIET_ROUNDS,
  quietWaitMs = QUIET_MS + RELEASE_AFTER_MS + 1000,
): Promise<Row[]> {
  console.error(`sync hermes_ask after a quiet spell: ${rounds} rounds, each after ${quietWaitMs / 1000} s without a request…`);
  const first: number[] = [];
  const next: number[] = [];
  const direct: number[] = [];
  const timedMs = async (call: () => Promise<unknown>): Promise<number> => {
    const started = performance.now();
    await call();
    return performance.now() - started;
  };
  for (let round = 0; round < rounds; round++) {
    await Bun.sleep(quietWaitMs);
    const prompt = `after quiet ${round}`;
    first.push(await timedMs(() => askBridge(bridgeUrl, token, round, prompt)));
    for (let call = 0; call < NEXT_CALLS; call++) next.push(await timedMs(() => askBridge(bridgeUrl, token, round, prompt)));
    direct.push(await timedMs(() => askGateway(gateway, prompt)));
  }
  const gatewayMs = median(direct);
  return [
    {
      metric: `sync hermes_ask added latency, first call after ${quietWaitMs / 1000} s of quiet (median of ${rounds}, ms)`,
      ours: (median(first) - gatewayMs).toFixed(2),
      baseline: `the ${NEXT_CALLS} calls right after it add ${(median(next) - gatewayMs).toFixed(2)}; gateway direct ${gatewayMs.toFixed(2)}`,
      ratio: "—",
      target: "reported",
      met: null,
    },
  ];
}
