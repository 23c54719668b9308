// Waiting in tests for something another process does: polled, bounded, and naming what was awaited when it times out.

/** Resolves once `check` holds; throws "timed out waiting for WHAT" after `ms`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 15_000, everyMs = 20): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await Bun.sleep(everyMs);
  }
}
