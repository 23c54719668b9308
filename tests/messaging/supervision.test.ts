// The supervised child on its own: lazy start, restarts with backoff after a crash, giving up after failures in a row until the next call, shutdown.
import { afterEach, describe, expect, test } from "bun:test";
import type { Config } from "../../src/config/load.ts";
import { splitCommand } from "../../src/config/schema.ts";
import { createLogger } from "../../src/log.ts";
import { MessagingService } from "../../src/messaging/service.ts";
import { fakeHermes, type FakeHermes } from "../support/fake-hermes.ts";
import { until } from "../support/until.ts";

const fakes: FakeHermes[] = [];
const services: MessagingService[] = [];
afterEach(async () => {
  await Promise.allSettled(services.splice(0).map((s) => s.close()));
  for (const f of fakes.splice(0)) f.remove();
});

function setup(backoff = { baseMs: 100, maxMs: 400, maxFailures: 3 }) {
  const fake = fakeHermes();
  fakes.push(fake);
  const lines: string[] = [];
  const config: Config["messaging"] = {
    mode: "send",
    command: splitCommand(fake.command),
    env: {},
    timeoutMs: 10_000,
    tools: { include: [], exclude: [] },
    staticClient: "off",
  };
  const service = new MessagingService({
    config,
    log: createLogger("DEBUG", "text", (line) => lines.push(line)),
    version: "test",
    parentEnv: process.env,
    backoff,
  });
  services.push(service);
  return { fake, service, lines };
}

const never = new AbortController().signal;

describe("the supervised child", () => {
  test("starts only when a caller with messaging asks; a caller without never starts it", async () => {
    const { fake, service } = setup();
    expect(await service.toolsFor("off")).toEqual([]);
    await Bun.sleep(100);
    expect(fake.pids()).toEqual([]);
    expect((await service.toolsFor("read")).length).toBe(7);
    expect(fake.pids()).toHaveLength(1);
  });

  test("a crash restarts it on its own after the backoff, with its stderr logged at DEBUG, redacted", async () => {
    const { fake, service, lines } = setup();
    const [tool] = await service.toolsFor("read");
    fake.crashOnNextCall();
    const crashed = await service.call(tool!, {}, "p", never);
    expect(crashed.isError).toBe(true);
    await until("a restarted child", () => fake.pids().length === 2 && service.running);
    expect(lines.some((l) => l.includes("DEBUG") && l.includes("fake hermes mcp serve starting") && l.includes("api_key=[REDACTED]"))).toBe(
      true,
    );
    expect(lines.join("\n")).not.toContain("sk-fakeleak");
  });

  test("after failures in a row it gives up; the next call starts it afresh", async () => {
    const { fake, service, lines } = setup();
    const [tool] = await service.toolsFor("read");
    fake.refuseToStart(true);
    fake.crashOnNextCall();
    await service.call(tool!, {}, "p", never);
    // 1 crash + 2 refused restarts = 3 failures in a row: no more restarts.
    await until("giving up", () => lines.some((l) => l.includes("keeps failing")));
    const pidsWhenGivenUp = fake.pids().length;
    expect(pidsWhenGivenUp).toBe(3);
    await Bun.sleep(1000);
    expect(fake.pids().length).toBe(pidsWhenGivenUp);
    fake.refuseToStart(false);
    const next = await service.call(tool!, {}, "p", never);
    expect(next.isError).toBeFalsy();
    expect(fake.pids().length).toBe(pidsWhenGivenUp + 1);
  });

  test("a restart scheduled far ahead is named, with when, instead of holding the call", async () => {
    const { fake, service } = setup({ baseMs: 30_000, maxMs: 60_000, maxFailures: 5 });
    const [tool] = await service.toolsFor("read");
    fake.crashOnNextCall();
    await service.call(tool!, {}, "p", never);
    const waiting = await service.call(tool!, {}, "p", never);
    expect(waiting.isError).toBe(true);
    expect(JSON.stringify(waiting.content)).toMatch(/restarts it in \d+ s/);
  });

  test("a clock set back a day while a restart is due: the call waits the restart, not told it is a day away", async () => {
    const { fake, service } = setup({ baseMs: 1000, maxMs: 1000, maxFailures: 3 });
    const [tool] = await service.toolsFor("read");
    fake.crashOnNextCall();
    await service.call(tool!, {}, "p", never);
    const wallClock = Date.now;
    Date.now = () => wallClock() - 86_400_000;
    try {
      const next = await service.call(tool!, {}, "p", never);
      expect(next.isError).toBeFalsy();
    } finally {
      Date.now = wallClock;
    }
    expect(fake.pids()).toHaveLength(2);
  });

  test("close stops the child and no restart follows", async () => {
    const { fake, service } = setup();
    await service.toolsFor("read");
    const [pid] = fake.pids();
    await service.close();
    await until("the child to exit", () => {
      try {
        process.kill(pid!, 0);
        return false;
      } catch {
        return true;
      }
    });
    await Bun.sleep(300);
    expect(fake.pids()).toHaveLength(1);
  });
});
