// The pages' building blocks: messages never show Markdown or unescaped text, both colour schemes meet WCAG AA, the CSP hash matches the stylesheet.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { errorPage, PALETTE, richText } from "../../src/oauth/html.ts";
import { contrast } from "../support/contrast.ts";

describe("richText", () => {
  test("backtick spans become <code>, escaped, with no backtick left", () => {
    expect(richText("until its owner runs `hermes-mcp set-password`")).toBe("until its owner runs <code>hermes-mcp set-password</code>");
    expect(richText("a `<b>x</b>` b")).toBe("a <code>&lt;b&gt;x&lt;/b&gt;</code> b");
  });

  test("hermes-mcp commands in plain words become <code>; other uses of the name do not", () => {
    expect(richText("run hermes-mcp set-password at the machine.")).toBe("run <code>hermes-mcp set-password</code> at the machine.");
    expect(richText("see hermes-mcp clients list")).toBe("see <code>hermes-mcp clients list</code>");
    expect(richText("hermes-mcp did not send you anywhere")).toBe("hermes-mcp did not send you anywhere");
  });

  test("everything else is escaped, and an unpaired backtick stays literal", () => {
    expect(richText(`<script>alert("x")</script> & 'y'`)).toBe("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;");
    expect(richText("a ` b")).toBe("a ` b");
    expect(richText("`a` and ` c")).toBe("<code>a</code> and ` c");
  });

  test("an error page renders its message's commands as code, with no backtick", async () => {
    const html = await errorPage(
      400,
      "Unknown client",
      "This app cannot sign in here: accepted once its owner runs `hermes-mcp set-password`.",
    ).text();
    const body = html.slice(html.indexOf("<body>"));
    expect(body).not.toContain("`");
    expect(body).toContain("<code>hermes-mcp set-password</code>");
    const titled = await errorPage(400, "Run `hermes-mcp doctor`", "m").text();
    expect(titled).toContain("<title>Run hermes-mcp doctor</title>");
    expect(titled).toContain("<h1>Run <code>hermes-mcp doctor</code></h1>");
  });
});

describe("colours (WCAG 2.2 AA)", () => {
  for (const scheme of ["light", "dark"] as const) {
    const p = PALETTE[scheme];
    test(`${scheme}: text ≥ 4.5:1 on every background it sits on, input and button boundaries ≥ 3:1`, () => {
      const text: [string, string, string][] = [
        ["text on page", p.fg, p.bg],
        ["text on card", p.fg, p.card],
        ["muted on card", p.muted, p.card],
        ["muted on page", p.muted, p.bg],
        ["error on card", p.bad, p.card],
        ["link on card", p.accent, p.card],
        ["Approve label", p.onAccent, p.accent],
        ["Deny label", p.fg, p.card],
        ["typed password", p.fg, p.bg],
      ];
      for (const [what, fg, bg] of text) expect({ what, ok: contrast(fg, bg) >= 4.5 }).toEqual({ what, ok: true });
      const boundaries: [string, string, string][] = [
        ["input border on card", p.field, p.card],
        ["Deny border on card", p.field, p.card],
        ["Approve on card", p.accent, p.card],
      ];
      for (const [what, fg, bg] of boundaries) expect({ what, ok: contrast(fg, bg) >= 3 }).toEqual({ what, ok: true });
    });
  }

  test("the contrast helper agrees with WCAG's reference values", () => {
    expect(contrast("#000", "#fff")).toBeCloseTo(21, 5);
    expect(contrast("#777777", "#ffffff")).toBeCloseTo(4.48, 2);
    expect(contrast("rgb(255, 255, 255)", "#ffffff")).toBe(1);
  });
});

test("the page's CSP allows exactly its stylesheet (sha256 of the <style> text)", async () => {
  const response = errorPage(400, "t", "m");
  const html = await response.text();
  const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? "";
  const hash = createHash("sha256").update(style, "utf8").digest("base64");
  expect(response.headers.get("Content-Security-Policy")).toContain(`style-src 'sha256-${hash}'`);
});
