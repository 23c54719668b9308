// Server-rendered pages (consent, errors): escaping, one inline stylesheet allowed by hash, and the strict security headers every page carries.
import { createHash } from "node:crypto";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] as string);
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1b1f;--muted:#5d5d66;--bg:#f6f6f8;--card:#fff;--line:#d9d9e0;--accent:#3b4cca;--bad:#b3261e}
@media (prefers-color-scheme:dark){:root{--fg:#ececf1;--muted:#a3a3ad;--bg:#111114;--card:#1c1c21;--line:#34343c;--accent:#8d9bff;--bad:#ff8a80}}
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
label{display:block;font-weight:600;margin:0 0 .35rem}
input[type=password]{width:100%;font-size:1rem;padding:.7rem;border:1px solid var(--line);border-radius:8px;background:var(--bg);color:var(--fg)}
.actions{display:flex;flex-direction:row-reverse;gap:.75rem;margin-top:1rem}
button{flex:1;font-size:1rem;padding:.75rem;border-radius:8px;border:1px solid var(--line);background:var(--card);color:var(--fg);cursor:pointer}
button.primary{background:var(--accent);border-color:var(--accent);color:#fff}
small{color:var(--muted)}
`;
const STYLE_HASH = `'sha256-${createHash("sha256").update(STYLE, "utf8").digest("base64")}'`;

/**
 * A whole page. CSP: nothing loads from anywhere (default-src 'none'), no script at all, only our own stylesheet;
 * frame-ancestors 'none' + X-Frame-Options stop clickjacking; form-action names exactly where the form may go.
 */
export function page(title: string, body: string, options: { status?: number; formAction?: string[]; headers?: Record<string, string> } = {}): Response {
  const formAction = ["'self'", ...(options.formAction ?? [])].join(" ");
  const csp = `default-src 'none'; style-src ${STYLE_HASH}; img-src 'none'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
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
  const body = `<div class="card"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>
<p><small>hermes-mcp did not send you anywhere. Close this page and try again from your app; if it keeps happening, run <code>hermes-mcp doctor</code>.</small></p></div>`;
  return page(title, body, { status, headers });
}
