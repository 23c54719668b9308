// Messaging as the MCP layer sees it: the tools a caller at some level may use, calling one (bounded, redacted, sends logged), and a change signal.
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import type { Config } from "../config/load.ts";
import type { Logger } from "../log.ts";
import { boundResult } from "./bounds.ts";
import { HermesChild, MessagingUnavailable, type Backoff } from "./child.ts";
import { resolveHermesCommand } from "./command.ts";
import { childEnvironment } from "./environment.ts";
import { atMost, type MessagingLevel } from "./level.ts";
import { redactCredentials } from "./redact.ts";
import { exposedTools, toolsFor, type MessagingTool } from "./tools.ts";

export interface MessagingOptions {
  config: Config["messaging"];
  log: Logger;
  version: string;
  /** The daemon's own environment, from which only the safe baseline passes to the child. */
  parentEnv: Record<string, string | undefined>;
  backoff?: Backoff;
}

const errorResult = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });

/** Text blocks of a child's error result, redacted (Hermes's rule for tool errors a model sees). */
function redactError(result: CallToolResult): CallToolResult {
  if (!result.isError) return result;
  return {
    ...result,
    content: (result.content ?? []).map((block) => (block.type === "text" ? { ...block, text: redactCredentials(block.text) } : block)),
  };
}

export class MessagingService {
  readonly mode: MessagingLevel;
  private readonly child: HermesChild;
  private tools: MessagingTool[] = [];
  private listed = false;
  private generation = 0;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly options: MessagingOptions) {
    this.mode = options.config.mode;
    const env = childEnvironment(options.parentEnv, options.config.env);
    this.child = new HermesChild({
      command: () => resolveHermesCommand(options.config.command, { ...options.parentEnv, ...env }),
      env,
      timeoutMs: options.config.timeoutMs,
      log: options.log,
      version: options.version,
      backoff: options.backoff,
      onTools: (tools) => this.setTools(tools),
    });
  }

  /** Moves whenever the offered tools change (the child's list changed, or it first answered). */
  get version(): number {
    return this.generation;
  }

  /** The per-call timeout (HERMES_MCP_MESSAGING_TIMEOUT_SECONDS). */
  get timeoutMs(): number {
    return this.options.config.timeoutMs;
  }

  /** Whether the child has answered a tool list yet (until then a caller's list may still grow). */
  get ready(): boolean {
    return this.listed;
  }

  /** Called after every change of the offered tools; returns the function that unsubscribes. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The level a caller granted `granted` actually has: never more than HERMES_MCP_MESSAGING. */
  levelFor(granted: MessagingLevel): MessagingLevel {
    return atMost(this.mode, granted);
  }

  private setTools(childTools: Tool[]): void {
    const next = exposedTools(childTools, this.options.config.tools);
    const same = this.listed && JSON.stringify(next) === JSON.stringify(this.tools);
    this.tools = next;
    this.listed = true;
    if (same) return;
    this.generation += 1;
    this.options.log.info("messaging: tools offered", { tools: next.map((t) => t.name).join(",") || "none" });
    for (const listener of this.listeners) listener();
  }

  /**
   * The tools a caller at `granted` may see. A caller without messaging never starts the child; the first caller with
   * it does (lazily). While the child is down its last known list stands; if it never answered, there are none.
   */
  async toolsFor(granted: MessagingLevel): Promise<MessagingTool[]> {
    const level = this.levelFor(granted);
    if (level === "off") return [];
    if (!this.listed) {
      try {
        await this.child.ensureStarted();
      } catch (error) {
        this.options.log.warn("messaging: tools unavailable", { error: (error as Error).message });
        return [];
      }
    }
    return toolsFor(this.tools, level);
  }

  /** The offered tool named `name` for a caller at `granted`, or null (to that caller it does not exist). */
  async find(granted: MessagingLevel, name: string): Promise<MessagingTool | null> {
    return (await this.toolsFor(granted)).find((tool) => tool.name === name) ?? null;
  }

  /**
   * Calls a tool for `principal`. Every send is logged at INFO (who, where, how long; the text only at DEBUG).
   * The answer is bounded in size, and the child's errors are redacted; failures are error results, never throws.
   */
  async call(tool: MessagingTool, args: Record<string, unknown>, principal: string, signal: AbortSignal): Promise<CallToolResult> {
    if (tool.upstream === "messages_send") this.logSend(principal, args);
    try {
      const result = await this.child.callTool(tool.upstream, args, signal);
      return boundResult(redactError(result));
    } catch (error) {
      if (error instanceof MessagingUnavailable) return errorResult(error.message);
      this.options.log.error("messaging: call failed", { tool: tool.name, error: redactCredentials((error as Error).message) });
      return errorResult(`messaging call ${tool.name} failed inside hermes-mcp; see its log`);
    }
  }

  private logSend(principal: string, args: Record<string, unknown>): void {
    const target = [args.target, args.to, args.channel, args.chat_id].find((v) => typeof v === "string") as string | undefined;
    const text = [args.message, args.text, args.content].find((v) => typeof v === "string") as string | undefined;
    this.options.log.info("messaging: send", { principal, target: target ?? "(none)", length: text?.length ?? 0 });
    this.options.log.debug("messaging: send text", { principal, text: text ?? "" });
  }

  /** For `doctor`: starts the child once and lists what it offers (throws MessagingUnavailable with the fix). */
  async probe(): Promise<{ childTools: string[]; offered: string[] }> {
    const childTools = await this.child.listTools();
    return { childTools: childTools.map((t) => t.name), offered: exposedTools(childTools, this.options.config.tools).map((t) => t.name) };
  }

  /** Whether the child is running now. */
  get running(): boolean {
    return this.child.running;
  }

  get childPid(): number | null {
    return this.child.pid;
  }

  async close(): Promise<void> {
    await this.child.close();
  }
}
