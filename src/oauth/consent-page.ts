// The consent page for dynamic clients: who is asking, where it will be sent, what it grants, the owner's password, Approve / Deny.
import type { MessagingLevel } from "../messaging/level.ts";
import type { ResolvedClient } from "./clients.ts";
import type { SealedRequest } from "./csrf.ts";
import { code, escapeHtml, page, richText } from "./html.ts";
import { describeRedirect, formActionSource } from "./redirects.ts";

export interface ConsentView {
  client: ResolvedClient;
  redirectUri: string;
  sealed: SealedRequest;
  error?: string;
  status?: number;
  /** How far messaging is on (HERMES_MCP_MESSAGING): what the page may offer beyond running tasks. */
  messaging: MessagingLevel;
  /** What is ticked: what the app asked for (its `scope`), or what the owner had ticked when the page is shown again. */
  messagingChosen?: MessagingLevel;
  /** Whether the app itself asked for messaging scopes (the page says so). */
  messagingRequested?: boolean;
}

/**
 * Reading the owner's chats is a power of its own, so it is its own choice, named for what it is: unticked unless the
 * app asked for it in its `scope` (then ticked, and the legend says the app asks); sending needs its own tick, and
 * includes reading. Nothing is granted without the owner's password on this page.
 */
function messagingChoice(offered: MessagingLevel, chosen: MessagingLevel = "off", requested = false): string {
  if (offered === "off") return "";
  const box = (name: string, checked: boolean, text: string): string =>
    `<label class="check"><input type="checkbox" name="${name}" value="yes"${checked ? " checked" : ""}><span>${text}</span></label>`;
  const read = box(
    "messaging_read",
    chosen !== "off",
    "Also let it <strong>read your messages</strong>: every chat Hermes is connected to (Telegram, Discord, Slack…), with their attachments",
  );
  const send =
    offered === "send"
      ? box(
          "messaging_send",
          chosen === "send",
          "Also let it <strong>send messages as your Hermes bot</strong> to those chats (includes reading them)",
        )
      : "";
  const legend = requested ? "This app also asks for your messages" : "Your messages (optional)";
  return `<fieldset class="messaging"><legend>${legend}</legend>${read}${send}</fieldset>`;
}

/** The messaging level the owner ticked on a submitted form (sending includes reading), never more than offered. */
export function chosenMessaging(form: Record<string, string>, offered: MessagingLevel): MessagingLevel {
  if (offered === "off") return "off";
  if (offered === "send" && form.messaging_send === "yes") return "send";
  return form.messaging_read === "yes" || form.messaging_send === "yes" ? "read" : "off";
}

function identity(client: ResolvedClient): [string, string] {
  if (client.kind === "cimd") {
    const host = new URL(client.id).host;
    return ["Published by", `${host} (client metadata at ${client.id})`];
  }
  return ["Client ID", `${client.id} (registered itself with this server)`];
}

/** Approve comes first in the form, so Enter in the password field approves (implicit submission uses the first button); CSS shows it on the right. */
export function renderConsent(view: ConsentView): Response {
  const { client, redirectUri, sealed } = view;
  const [idLabel, idValue] = identity(client);
  const error = view.error ? `<p class="error" role="alert">${richText(view.error)}</p>` : "";
  const body = `<div class="card">
<h1>Allow ${escapeHtml(client.name)} to use your Hermes Agent?</h1>
<dl>
<dt>App</dt><dd>${escapeHtml(client.name)}</dd>
<dt>${escapeHtml(idLabel)}</dt><dd>${escapeHtml(idValue)}</dd>
<dt>Returns to</dt><dd>${escapeHtml(describeRedirect(redirectUri))}</dd>
</dl>
<p class="grant">If you approve, this app can <strong>run tasks on your Hermes Agent</strong> — which may send email, post messages and run commands as you — until you revoke it with ${code("hermes-mcp clients revoke")}.</p>
<p><small>Only approve an app you just tried to connect yourself.</small></p>
${error}
<form method="post" action="/authorize">
<input type="hidden" name="req" value="${escapeHtml(sealed.req)}">
<input type="hidden" name="csrf" value="${escapeHtml(sealed.csrf)}">
${messagingChoice(view.messaging, view.messagingChosen, view.messagingRequested)}
<label for="password">Your hermes-mcp password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required autofocus>
<div class="actions">
<button type="submit" name="action" value="approve" class="primary">Approve</button>
<button type="submit" name="action" value="deny" formnovalidate>Deny</button>
</div>
</form>
</div>`;
  const target = formActionSource(redirectUri);
  return page(`Allow ${client.name}?`, body, { status: view.status ?? 200, formAction: target ? [target] : [] });
}
