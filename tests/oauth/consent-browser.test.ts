// The consent page in a real browser (Debian's Chromium via playwright-core): approve and deny land on the app's callback, its CSP holds, it cannot be framed, it fits a phone, and every page reads well (WCAG AA contrast, light and dark, no Markdown).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { contrast } from "../support/contrast.ts";
import {
  authorizeUrl,
  consentPage,
  mcpStatus,
  PASSWORD,
  pkce,
  registerOk,
  setPassword,
  startOAuthWorld,
  submitConsent,
  tokenRequest,
  type OAuthWorld,
} from "../support/oauth-flow.ts";

const CHROMIUM = "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
// CI installs Chromium (.ci/run), so there a missing browser is a failure; elsewhere the tests say how to get it and skip.
if (!available && process.env.CI !== "true")
  console.warn(`consent-browser: ${CHROMIUM} not found — skipping (install it with: apt-get install chromium)`);
const runs = available || process.env.CI === "true";
const SLOW = 30_000;

/** The app's loopback callback: records every query it receives. */
function startCallback(): { url: string; hits: URLSearchParams[]; stop: () => void } {
  const hits: URLSearchParams[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      hits.push(new URL(request.url).searchParams);
      return new Response("<!doctype html><title>app callback</title><p>back in the app</p>", { headers: { "Content-Type": "text/html" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/callback`, hits, stop: () => void server.stop(true) };
}

let world: OAuthWorld;
let browser: Browser;
let callback: ReturnType<typeof startCallback>;

beforeAll(async () => {
  if (!runs) return;
  if (!available) throw new Error(`${CHROMIUM} is missing; .ci/run installs it with apt-get install chromium`);
  world = await startOAuthWorld({ password: true });
  callback = startCallback();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
}, SLOW);

afterAll(async () => {
  if (!runs) return;
  await browser?.close();
  callback?.stop();
  await world?.close();
});

async function consentFor(name: string, state: string, base = world.url): Promise<{ url: string; clientId: string; verifier: string }> {
  const client = await registerOk(base, { client_name: name, redirect_uris: [callback.url], token_endpoint_auth_method: "none" });
  const pair = pkce();
  const url = authorizeUrl(base, {
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: callback.url,
    code_challenge: pair.challenge,
    code_challenge_method: "S256",
    state,
    resource: `${base}/mcp`,
  });
  return { url, clientId: client.client_id, verifier: pair.verifier };
}

/** Console lines and every request the page makes, to catch CSP violations and external loads. */
function watch(page: Page): { console: string[]; requests: string[] } {
  const seen = { console: [] as string[], requests: [] as string[] };
  page.on("console", (message) => seen.console.push(message.text()));
  page.on("request", (request) => seen.requests.push(request.url()));
  return seen;
}

describe.skipIf(!runs)("the consent page in Chromium", () => {
  test(
    "a wrong password shows the page again; the right one, typed and sent with Enter, lands on the app with code, state and iss",
    async () => {
      const flow = await consentFor("Browser App", "st-approve");
      const page = await browser.newPage();
      const seen = watch(page);
      await page.goto(flow.url);
      const text = await page.textContent("body");
      expect(text).toContain("Browser App");
      expect(text).toContain(flow.clientId);
      expect(text).toContain(new URL(callback.url).host);
      expect(text).toContain("run tasks on your Hermes Agent");

      await page.fill("#password", "not the password");
      await page.click("button[value=approve]");
      await page.waitForSelector(".error");
      expect(await page.textContent(".error")).toContain("Wrong password");
      expect(callback.hits).toHaveLength(0);

      // Enter in the password field must approve, never deny (implicit submission uses the first submit button).
      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForURL(`${callback.url}?**`), page.press("#password", "Enter")]);
      const landed = new URL(page.url()).searchParams;
      expect(landed.get("state")).toBe("st-approve");
      expect(landed.get("iss")).toBe(world.url);
      expect(landed.get("error")).toBeNull();
      const code = landed.get("code") as string;
      expect(code).toStartWith("hmcp_code_");

      const tokens = await tokenRequest(world.url, {
        grant_type: "authorization_code",
        code,
        redirect_uri: callback.url,
        code_verifier: flow.verifier,
        client_id: flow.clientId,
      });
      expect(tokens.status).toBe(200);
      expect(await mcpStatus(world.url, tokens.body.access_token as string)).toBe(200);
      expect(seen.console.filter((line) => /content security policy/i.test(line))).toEqual([]);
      await page.close();
    },
    SLOW,
  );

  test(
    "Deny on a never-approved app stays on this host (RFC 9700 §4.11.2); on an app approved before it lands on the app with error=access_denied",
    async () => {
      const fresh = await consentFor("Unknown App", "st-deny-new");
      const first = await browser.newPage();
      await first.goto(fresh.url);
      await Promise.all([first.waitForLoadState("load"), first.click("button[value=deny]")]);
      expect(new URL(first.url()).origin).toBe(world.url);
      expect(await first.textContent("body")).toContain("denied");
      expect(callback.hits.filter((hit) => hit.get("state") === "st-deny-new")).toHaveLength(0);
      await first.close();

      const flow = await consentFor("Denied App", "st-deny");
      // Approved once over HTTP, the app's redirect URI is trusted from then on.
      const approved = await consentPage(world.url, Object.fromEntries(new URL(flow.url).searchParams));
      expect((await submitConsent(world.url, approved, PASSWORD, "approve")).status).toBe(303);
      const page = await browser.newPage();
      await page.goto(flow.url);
      await Promise.all([page.waitForURL(`${callback.url}?**`), page.click("button[value=deny]")]);
      const landed = new URL(page.url()).searchParams;
      expect(landed.get("error")).toBe("access_denied");
      expect(landed.get("state")).toBe("st-deny");
      expect(landed.get("code")).toBeNull();
      await page.close();
    },
    SLOW,
  );

  test(
    "an app's name cannot run script or load anything: no request but the page, no CSP violation, the name shown as text",
    async () => {
      const name = `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`;
      const flow = await consentFor(name, "st-xss");
      const page = await browser.newPage();
      const seen = watch(page);
      await page.goto(flow.url);
      expect(await page.title()).not.toBe("pwned");
      expect(await page.locator("img").count()).toBe(0);
      expect(await page.textContent("h1")).toContain("<img src=x");
      expect(seen.requests.filter((url) => !url.startsWith(flow.url))).toEqual([]);
      expect(seen.console.filter((line) => /content security policy/i.test(line))).toEqual([]);
      await page.close();
    },
    SLOW,
  );

  test(
    "another site cannot frame it (frame-ancestors 'none')",
    async () => {
      const flow = await consentFor("Framed App", "st-frame");
      const framer = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: () =>
          new Response(`<!doctype html><iframe id="f" src="${flow.url.replace(/&/g, "&amp;")}" width="400" height="400"></iframe>`, {
            headers: { "Content-Type": "text/html" },
          }),
      });
      const page = await browser.newPage();
      try {
        await page.goto(`http://127.0.0.1:${framer.port}/`);
        await page.waitForTimeout(500);
        const frame = page.frames().find((f) => f !== page.mainFrame());
        const passwordFields = frame
          ? await frame
              .locator("input[type=password]")
              .count()
              .catch(() => 0)
          : 0;
        expect(passwordFields).toBe(0);
      } finally {
        await page.close();
        void framer.stop(true);
      }
    },
    SLOW,
  );

  test(
    "fits a phone: no sideways scrolling, the password field and both buttons visible and large enough to tap",
    async () => {
      const flow = await consentFor("A Rather Long Application Name For A Small Screen", "st-phone");
      const context = await browser.newContext({
        viewport: { width: 375, height: 667 },
        isMobile: true,
        hasTouch: true,
        deviceScaleFactor: 2,
      });
      const page = await context.newPage();
      await page.goto(flow.url);
      const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
      expect(widths.scroll).toBeLessThanOrEqual(widths.inner);
      for (const selector of ["#password", "button[value=approve]", "button[value=deny]"]) {
        const box = await page.locator(selector).boundingBox();
        expect(box).not.toBeNull();
        expect(box?.height ?? 0).toBeGreaterThanOrEqual(40);
        expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= 375).toBe(true);
      }
      await context.close();
    },
    SLOW,
  );
});

interface Measured {
  what: string;
  fg: string;
  bg: string;
  /** text: WCAG 1.4.3 (4.5:1); boundary: 1.4.11, a control's edge against what surrounds it (3:1). */
  kind: "text" | "boundary";
}

/** Every element showing text, and every input's and button's edge, with the colours the browser computed: foreground vs. the effective background behind it. */
function measure(page: Page): Promise<Measured[]> {
  return page.evaluate(() => {
    const opaque = (colour: string): boolean => colour !== "transparent" && !/rgba\([^)]*,\s*0\)$/.test(colour);
    const backgroundOf = (element: Element | null): string => {
      for (let at = element; at; at = at.parentElement) {
        const colour = getComputedStyle(at).backgroundColor;
        if (opaque(colour)) return colour;
      }
      return "rgb(255, 255, 255)";
    };
    const name = (element: Element): string =>
      `${element.tagName.toLowerCase()}${element.className ? `.${element.className}` : ""}${element.getAttribute("value") ? `[${element.getAttribute("value")}]` : ""} "${(element.textContent ?? "").trim().slice(0, 30)}"`;
    const out: { what: string; fg: string; bg: string; kind: "text" | "boundary" }[] = [];
    for (const element of document.body.querySelectorAll("*")) {
      const style = getComputedStyle(element);
      if (style.display === "none" || style.visibility === "hidden" || element.getClientRects().length === 0) continue;
      const ownText = [...element.childNodes].some((node) => node.nodeType === Node.TEXT_NODE && (node.textContent ?? "").trim() !== "");
      const control = element.matches("input[type=password], button");
      if (ownText || control) out.push({ what: name(element), fg: style.color, bg: backgroundOf(element), kind: "text" });
      if (control) {
        const around = backgroundOf(element.parentElement);
        const own = style.backgroundColor;
        // The edge a user sees: the border, or the filled background when the button is filled with its border colour.
        const edge = opaque(own) && own !== around && own === style.borderTopColor ? own : style.borderTopColor;
        out.push({ what: `${name(element)} edge`, fg: edge, bg: around, kind: "boundary" });
      }
    }
    return out;
  });
}

/** The measurements that fall short of WCAG AA (empty when the page passes). */
async function belowAA(page: Page): Promise<string[]> {
  const measured = await measure(page);
  expect(measured.length).toBeGreaterThan(2);
  return measured
    .map((m) => ({ ...m, ratio: contrast(m.fg, m.bg) }))
    .filter((m) => m.ratio < (m.kind === "text" ? 4.5 : 3))
    .map((m) => `${m.what}: ${m.fg} on ${m.bg} = ${m.ratio.toFixed(2)}:1`);
}

/** In light and in dark: every text and control edge at AA contrast, no Markdown backtick in the visible text; a screenshot of each to the temp directory (named, so each run replaces the last). */
async function readableInBothSchemes(page: Page, label: string): Promise<string> {
  let text = "";
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect({ colorScheme, dark: contrast(background, "#000") < contrast(background, "#fff") }).toEqual({
      colorScheme,
      dark: colorScheme === "dark",
    });
    expect({ label, colorScheme, failing: await belowAA(page) }).toEqual({ label, colorScheme, failing: [] });
    text = await page.innerText("body");
    expect(text).not.toContain("`");
    await page.screenshot({ path: join(tmpdir(), `hermes-mcp-${label}-${colorScheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: null });
  return text;
}

describe.skipIf(!runs)("the pages read well in light and dark (WCAG AA contrast, no Markdown)", () => {
  /** What the lockout page said, for the test after the one that reaches it. */
  const lockout = { text: "", code: [] as string[] };

  test(
    "the consent page, with its wrong-password error showing",
    async () => {
      const flow = await consentFor("Contrast App", "st-contrast");
      const page = await browser.newPage();
      await page.goto(flow.url);
      await page.fill("#password", "not the password");
      await page.click("button[value=approve]");
      await page.waitForSelector(".error");
      const text = await readableInBothSchemes(page, "consent");
      expect(text).toContain("Wrong password");
      expect(await page.textContent("code")).toBe("hermes-mcp clients revoke");
      await page.close();
    },
    SLOW,
  );

  test(
    "the error pages, and the lockout page after five wrong passwords",
    async () => {
      const bare = await startOAuthWorld();
      const page = await browser.newPage();
      try {
        // No password yet: an app that registers itself is refused with a page naming the command that lets it in.
        const unknown = authorizeUrl(bare.url, {
          response_type: "code",
          client_id: "hmcp_client_unknown",
          redirect_uri: callback.url,
          code_challenge: pkce().challenge,
          code_challenge_method: "S256",
        });
        await page.goto(unknown);
        const refusal = await readableInBothSchemes(page, "unknown-client");
        expect(refusal).toContain("Unknown client");
        expect(await page.locator("code", { hasText: "hermes-mcp set-password" }).count()).toBe(1);

        await setPassword(bare.home, bare.env);
        const flow = await consentFor("Guessing App", "st-lock", bare.url);
        await page.goto(flow.url);
        for (let attempt = 0; attempt < 5 && (await page.locator("#password").count()) > 0; attempt++) {
          await page.fill("#password", `wrong ${attempt}`);
          await Promise.all([page.waitForLoadState(), page.click("button[value=approve]")]);
        }
        await page.waitForSelector("h1");
        expect(await page.textContent("h1")).toContain("locked");
        lockout.text = await readableInBothSchemes(page, "lockout");
        lockout.code = await page.locator("code").allTextContents();
        expect(callback.hits.filter((hit) => hit.get("state") === "st-lock")).toHaveLength(0);
      } finally {
        await page.close();
        await bare.close();
      }
    },
    SLOW,
  );

  test(
    "with messaging on, the consent page's checkboxes read well too, and a wrong password keeps what was ticked",
    async () => {
      const messaging = await startOAuthWorld({
        password: true,
        env: { HERMES_MCP_MESSAGING: "send", HERMES_MCP_HERMES_COMMAND: "/nonexistent/hermes mcp serve" },
      });
      const page = await browser.newPage();
      try {
        const flow = await consentFor("Messaging App", "st-msg", messaging.url);
        await page.goto(flow.url);
        expect(await page.isChecked("input[name=messaging_read]")).toBe(false);
        expect(await page.isChecked("input[name=messaging_send]")).toBe(false);
        await page.check("input[name=messaging_read]");
        await page.fill("#password", "not the password");
        await page.click("button[value=approve]");
        await page.waitForSelector(".error");
        expect(await page.isChecked("input[name=messaging_read]")).toBe(true);
        expect(await page.isChecked("input[name=messaging_send]")).toBe(false);
        const text = await readableInBothSchemes(page, "consent-messaging");
        expect(text).toContain("read your messages");
        expect(text).toContain("send messages as your Hermes bot");
        // The checkbox itself: its accent (ticked) and its label stand out from the card in both schemes (WCAG 1.4.11).
        for (const colorScheme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme });
          const [accent, card] = await page.evaluate(() => [
            getComputedStyle(document.querySelector("input[name=messaging_read]") as Element).accentColor,
            getComputedStyle(document.querySelector(".card") as Element).backgroundColor,
          ]);
          expect({ colorScheme, enough: contrast(accent as string, card as string) >= 3 }).toEqual({ colorScheme, enough: true });
        }
      } finally {
        await page.close();
        await messaging.close();
      }
    },
    SLOW,
  );

  test("the lockout page tells the owner the way out: hermes-mcp set-password, shown as code", () => {
    expect(lockout.text).toContain("hermes-mcp set-password");
    expect(lockout.code).toContain("hermes-mcp set-password");
  });
});
