// bench/load.ts reads wrk's report: throughput, completed calls (the divisor of CPU per call) and percentiles in ms; failed answers refuse the run.
import { expect, test } from "bun:test";
import { parseWrkOutput } from "../../bench/load.ts";

// A wrk 4 report as printed on this machine (a 1 s run against a bare Bun.serve).
const REPORT = `Running 1s test @ http://127.0.0.1:18555/
  2 threads and 10 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   288.32us  557.33us   5.28ms   91.30%
    Req/Sec    32.73k     9.63k   46.77k    55.00%
  Latency Distribution
     50%  109.00us
     75%  222.00us
     90%  678.00us
     99%    3.02ms
  65209 requests in 1.00s, 7.28MB read
Requests/sec:  65061.96
Transfer/sec:      7.26MB
`;

test("reads requests per second, the calls completed, and p50 / p99 converted to milliseconds", () => {
  const result = parseWrkOutput(REPORT, "http://127.0.0.1:18555/");
  expect(result.rps).toBe(65061.96);
  expect(result.requests).toBe(65209);
  expect(result.p50).toBeCloseTo(0.109, 6);
  expect(result.p99).toBeCloseTo(3.02, 6);
});

test("a percentile in seconds is converted too", () => {
  expect(parseWrkOutput(REPORT.replace("99%    3.02ms", "99%    1.50s"), "u").p99).toBe(1500);
});

test("any answer that was not 2xx refuses the run, naming the count and the URL", () => {
  const failed = REPORT.replace("Requests/sec:", "  Non-2xx or 3xx responses: 12\nRequests/sec:");
  expect(() => parseWrkOutput(failed, "http://127.0.0.1:1/mcp")).toThrow("wrk saw 12 failed responses from http://127.0.0.1:1/mcp");
});

test("a report without the completed calls or the rate is not understood, rather than read as zero", () => {
  expect(() => parseWrkOutput(REPORT.replace("  65209 requests in 1.00s, 7.28MB read\n", ""), "u")).toThrow("wrk output not understood");
  expect(() => parseWrkOutput(REPORT.replace(/Requests\/sec:.*\n/, ""), "u")).toThrow("wrk output not understood");
  expect(() => parseWrkOutput("unable to connect to 127.0.0.1:1 Connection refused\n", "u")).toThrow("wrk output not understood");
});
