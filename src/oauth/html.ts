// Server-rendered pages (consent, errors): escaping, one inline stylesheet allowed by hash, and the strict security headers every page carries.
import { sha256 } from "../crypto/primitives.ts";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] as string);
}

/** A command or value shown as code, escaped. */
export function code(text: string): string {
  return `<code>${escapeHtml(text)}</code>`;
}

/** hermes-mcp commands a message may name in plain words ("run hermes-mcp set-password at the machine"). */
const COMMAND =
  /\bhermes-mcp (?:set-password|doctor|serve|mint-client(?: --write)?|(?:token|clients) (?:create|list|revoke)|token|clients)\b/g;

/**
 * Message text for a page: everything escaped, `backtick spans` (how CLI and API messages mark commands) and bare
 * hermes-mcp commands shown as <code>, so no Markdown ever reaches the reader. An unpaired backtick stays literal.
 */
export function richText(text: string): string {
  const parts = text.split("`");
  const paired = parts.length % 2 === 1 ? parts.length : parts.length - 1;
  return parts
    .map((part, index) => {
      if (index % 2 === 1 && index < paired) return code(part);
      const plain = escapeHtml(index % 2 === 1 ? `\`${part}` : part);
      return plain.replace(COMMAND, (command) => `<code>${command}</code>`);
    })
    .join("");
}

type Palette = Record<"fg" | "muted" | "bg" | "card" | "line" | "field" | "accent" | "onAccent" | "bad", string>;

/**
 * Both colour schemes, checked against WCAG 2.2 AA by tests/oauth/html.test.ts and in Chromium: every text colour on
 * the backgrounds it sits on ≥ 4.5:1 (1.4.3), `field` (input and button boundaries) ≥ 3:1 (1.4.11). `line` is decoration only.
 */
export const PALETTE: { light: Palette; dark: Palette } = {
  light: {
    fg: "#1b1b1f",
    muted: "#5d5d66",
    bg: "#f6f6f8",
    card: "#ffffff",
    line: "#d9d9e0",
    field: "#75757f",
    accent: "#3b4cca",
    onAccent: "#ffffff",
    bad: "#b3261e",
  },
  dark: {
    fg: "#ececf1",
    muted: "#a3a3ad",
    bg: "#111114",
    card: "#1c1c21",
    line: "#34343c",
    field: "#8a8a96",
    accent: "#8d9bff",
    onAccent: "#111114",
    bad: "#ff8a80",
  },
};

const variables = (p: Palette): string =>
  `--fg:${p.fg};--muted:${p.muted};--bg:${p.bg};--card:${p.card};--line:${p.line};--field:${p.field};--accent:${p.accent};--on-accent:${p.onAccent};--bad:${p.bad}`;

const STYLE = `
:root{color-scheme:light dark;${variables(PALETTE.light)}}
@media (prefers-color-scheme:dark){:root{${variables(PALETTE.dark)}}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--fg)}
main{max-width:28rem;margin:0 auto;padding:1.5rem 1rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:1.25rem}
h1{font-size:1.3rem;line-height:1.3;margin:0 0 1rem}
dl{margin:0 0 1rem;display:grid;grid-template-columns:auto 1fr;gap:.35rem .75rem}
dt{color:var(--muted)}
dd{margin:0;overflow-wrap:anywhere}
.grant{border-left:3px solid var(--accent);padding:.25rem .75rem;margin:0 0 1rem}
.error{color:var(--bad);font-weight:600}
code{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:4px;padding:0 .3em;display:inline-block;max-width:100%;overflow-wrap:anywhere}
a{color:var(--accent)}
label{display:block;font-weight:600;margin:0 0 .35rem}
input[type=password]{width:100%;font-size:1rem;padding:.7rem;border:1px solid var(--field);border-radius:8px;background:var(--bg);color:var(--fg)}
.actions{display:flex;flex-direction:row-reverse;gap:.75rem;margin-top:1rem}
button{flex:1;font-size:1rem;padding:.75rem;border-radius:8px;border:1px solid var(--field);background:var(--card);color:var(--fg);cursor:pointer}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--on-accent);font-weight:600}
small{color:var(--muted)}
fieldset{border:1px solid var(--line);border-radius:8px;margin:0 0 1rem;padding:.5rem .75rem .75rem}
legend{font-weight:600;padding:0 .25rem}
label.check{display:flex;gap:.6rem;align-items:flex-start;font-weight:400;margin:.5rem 0 0}
input[type=checkbox]{flex:none;width:1.25rem;height:1.25rem;margin:.15rem 0 0;accent-color:var(--accent)}
`;
const STYLE_HASH = `'sha256-${sha256(STYLE, "base64")}'`;

/**
 * A whole page. CSP: nothing loads from anywhere (default-src 'none'), no script at all, only our own stylesheet;
 * frame-ancestors 'none' + X-Frame-Options stop clickjacking; form-action names exactly where the form may go.
 */
export function page(
  title: string,
  body: string,
  options: { status?: number; formAction?: string[]; headers?: Record<string, string> } = {},
): Response {
  const formAction = ["'self'", ...(options.formAction ?? [])].join(" ");
  const csp = `default-src 'none'; style-src ${STYLE_HASH}; img-src 'none'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin"><title>${escapeHtml(title.replaceAll("`", ""))}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
  return new Response(html, {
    status: options.status ?? 200,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": csp,
      "X-Frame-Options": "DENY",
      "X-Content-Type-Options": "nosniff",
      // same-origin (not no-referrer): browsers send Origin: null on POSTs under no-referrer, and the form's origin is checked.
      "Referrer-Policy": "same-origin",
      "Cache-Control": "no-store",
      ...options.headers,
    },
  });
}

/** A refusal that must not redirect anywhere (unknown client, unregistered redirect URI: RFC 6749 §4.1.2.1). */
export function errorPage(status: number, title: string, message: string, headers: Record<string, string> = {}): Response {
  const body = `<div class="card"><h1>${richText(title)}</h1><p>${richText(message)}</p>
<p><small>hermes-mcp did not send you anywhere. Close this page and try again from your app; if it keeps happening, run ${code("hermes-mcp doctor")}.</small></p></div>`;
  return page(title, body, { status, headers });
}
