// Fuzz: N seeded malformed or mutated requests (raw bytes) against /mcp, /token, /authorize, the consent form, /register, /revoke: no 5xx, no crash, no hang, memory stable.
// Usage: bun run fuzz [--requests 20000] [--seed N] [--case I (replay one case and print it)]
import { type FuzzCase, type FuzzContext, fuzzCase } from "./fuzz-cases.ts";
import { consentPage, PASSWORD, pkce, registerOk, STATIC_ID } from "../tests/support/oauth-flow.ts";
import { Latencies, mib, procStats, rssLimit } from "./support/measure.ts";
import { type RawAnswer, type RawOptions, sendRaw } from "./support/raw-http.ts";
import { freshSeed, rngFor } from "./support/rng.ts";
import { callTool } from "./support/rpc.ts";
import { finish, main, numberFlag, startStressWorld, suspiciousLogLines, Violations } from "./support/run.ts";

/** Every request answered (or, for broken framing, closed) within this. */
export const ANSWER_BOUND_MS = 10_000;
/**
 * RSS readings taken along the run. "Stable" memory is no growth with the number of requests: the allocator keeps what
 * the largest bodies needed (a high-water mark reached within the first half, where the same mix already ran), so RSS
 * after the whole run, once quiet, must be within RSS_TOLERANCE (support/measure.ts) of the first half's highest.
 */
const CHECKPOINTS = 10;
/** A broken or cut request may leave the server waiting for the rest: the client gives up after this (like a real one). */
export const GIVE_UP_MS = 1000;
const CONCURRENCY = 16;

const sendOptions = (c: FuzzCase): RawOptions => ({
  truncateAt: c.truncateAt,
  giveUpAfterMs: c.broken ? GIVE_UP_MS : undefined,
  timeoutMs: ANSWER_BOUND_MS,
});

const requests = numberFlag("requests", 20_000);
const seed = numberFlag("seed", freshSeed());
const only = Bun.argv.includes("--case") ? numberFlag("case", 0) : null;
const REDIRECT = "http://127.0.0.1:9/callback";

/** The bytes as they were sent, escaped, for a replayed case. */
const printable = (bytes: Uint8Array): string =>
  Buffer.from(bytes.subarray(0, 2048))
    .toString("latin1")
    .replace(/[^\x20-\x7e\n]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);

await main(async () => {
  const violations = new Violations();
  const world = await startStressWorld({
    personalTokens: 1,
    password: PASSWORD,
    env: { HERMES_MCP_MAX_WAIT_SECONDS: "1", HERMES_MCP_SYNC_BUDGET_SECONDS: "2", HERMES_MCP_MAX_STORED_JOBS: "1000000" },
  });
  const url = world.daemon.url;
  const client = await registerOk(url, { redirect_uris: [REDIRECT], client_name: "fuzz", token_endpoint_auth_method: "none" });
  const consent = [];
  for (let i = 0; i < 4; i++) {
    const page = await consentPage(url, {
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      state: `s${i}`,
      resource: `${url}/mcp`,
    });
    if (!page.req || !page.csrf) throw new Error(`no consent form (status ${page.status})`);
    consent.push({ req: page.req, csrf: page.csrf });
  }
  const ctx: FuzzContext = {
    host: `127.0.0.1:${world.daemon.port}`,
    token: world.tokens[0] as string,
    staticId: STATIC_ID,
    staticSecret: world.staticSecret,
    consent,
    dynamicClientId: client.client_id,
    redirectUri: REDIRECT,
  };
  const pid = world.daemon.proc.pid;
  const caseAt = (index: number): FuzzCase => fuzzCase(rngFor(seed, index), ctx);

  if (only !== null) {
    const c = caseAt(only);
    const answer = await sendRaw(world.daemon.port, c.bytes, sendOptions(c));
    console.log(
      `case ${only} of seed ${seed}: ${c.target} ← ${c.mutations.join(" + ")} (${c.bytes.length} bytes${c.truncateAt ? `, cut at ${c.truncateAt}` : ""})`,
    );
    console.log(printable(c.bytes));
    console.log(`answer: ${JSON.stringify(answer)}`);
    return await finish("", violations, { script: "fuzz", seed, case: only, answer });
  }

  console.log(`fuzz: ${requests} requests, ${CONCURRENCY} at a time, seed ${seed} (replay one: bun run fuzz --seed ${seed} --case N)`);
  const latencies = new Latencies();
  const statuses = new Map<string, number>();
  const byMutation = new Map<string, number>();
  let next = 0;
  let crashed = false;
  let parserVersionRefusals = 0;
  const judge = (index: number, c: FuzzCase, answer: RawAnswer): void => {
    const where = `case ${index} (${c.target} ← ${c.mutations.join(" + ")})`;
    const key = `${c.target} ${answer.status ?? (answer.timedOut ? "timeout" : answer.gaveUp ? "gave-up" : "closed")}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    for (const m of c.mutations) byMutation.set(m, (byMutation.get(m) ?? 0) + 1);
    latencies.add(c.target, answer.ms);
    if (answer.timedOut) violations.add("no answer within the bound (hang)", where);
    else if (answer.status === 505 && c.broken) parserVersionRefusals++;
    else if (answer.status !== null && answer.status >= 500)
      violations.add(`HTTP ${answer.status}`, `${where}: ${answer.head.split("\r\n")[0]}`);
    else if (answer.status === null && !c.broken) violations.add(answer.gaveUp ? "no answer (gave up)" : "closed without an answer", where);
  };
  const run = async (upTo: number): Promise<void> => {
    const worker = async (): Promise<void> => {
      while (next < upTo && !crashed) {
        const index = next++;
        const c = caseAt(index);
        judge(index, c, await sendRaw(world.daemon.port, c.bytes, sendOptions(c)));
        if (world.daemon.proc.exitCode !== null && !crashed) {
          crashed = true;
          violations.add("daemon crashed", `exit ${world.daemon.proc.exitCode} around case ${index}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };

  const idle = procStats(pid);
  const started = performance.now();
  // The run in ten slices, RSS read after each: the first half's highest reading is the plateau to stay under.
  const checkpoints: number[] = [];
  let peak = idle.rssBytes;
  for (let slice = 1; slice <= CHECKPOINTS && !crashed; slice++) {
    await run(Math.round((requests * slice) / CHECKPOINTS));
    if (!crashed) checkpoints.push(procStats(pid).rssBytes);
    peak = Math.max(peak, ...checkpoints);
  }
  const plateau = Math.max(idle.rssBytes, ...checkpoints.slice(0, CHECKPOINTS / 2));
  const seconds = (performance.now() - started) / 1000;
  await Bun.sleep(3000);

  let after = idle;
  if (!crashed) {
    after = procStats(pid);
    const health = await fetch(`${url}/healthz`);
    if (health.status !== 200) violations.add("healthz after the fuzz", String(health.status));
    const ask = await callTool(url, ctx.token, "hermes_ask", { prompt: "still there?" });
    if (ask.data.status !== "completed") violations.add("a real call after the fuzz", ask.text.slice(0, 200));
    const limit = rssLimit(plateau);
    if (after.rssBytes > limit)
      violations.add("RSS not stable", `${mib(after.rssBytes)} after > ${mib(limit)} allowed (first-half high ${mib(plateau)})`);
    if (after.fds > idle.fds + 4) violations.add("descriptors not stable", `${after.fds} after > ${idle.fds} before + 4`);
  }
  for (const line of suspiciousLogLines(world.logs())) violations.add("suspicious daemon log line", line);

  const classes = [...statuses.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k}: ${n}`);
  const summary = [
    `fuzz: ${next} requests in ${seconds.toFixed(1)} s (${(next / seconds).toFixed(0)}/s), seed ${seed}`,
    `505 from Bun's HTTP parser for a broken request line (before any hermes-mcp code): ${parserVersionRefusals}`,
    `answers by target and status: ${classes.join(", ")}`,
    `mutations applied: ${[...byMutation.entries()].map(([m, n]) => `${m} ${n}`).join(", ")}`,
    latencies.table(),
    `daemon RSS: before ${mib(idle.rssBytes)}, at each tenth ${checkpoints.map((b) => (b / 1048576).toFixed(0)).join(" ")} MiB, after ${mib(after.rssBytes)} (limit: first-half high ${mib(plateau)} + tolerance)`,
    `daemon fds: before ${idle.fds}, after ${after.fds}`,
  ].join("\n");
  await finish(summary, violations, {
    script: "fuzz",
    seed,
    requests: next,
    rss: { idle: idle.rssBytes, plateau, peak, after: after.rssBytes, checkpoints },
  });
});
