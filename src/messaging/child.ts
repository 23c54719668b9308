// The supervised `hermes mcp serve` child: started lazily, spoken to with the SDK's stdio client, restarted with backoff when it crashes or hangs.
import type { CallToolResult, Client, Tool } from "@modelcontextprotocol/client";
import type { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { Logger } from "../log.ts";
import type { HermesCommand } from "./command.ts";
import { redactCredentials } from "./redact.ts";

export interface Backoff {
  /** First delay before a restart; it doubles after each failure in a row… */
  baseMs: number;
  /** …up to this… */
  maxMs: number;
  /** …and after this many failures in a row nothing restarts it until the next call. */
  maxFailures: number;
}

/** Hermes's own reconnection rule for MCP servers it launches: 1 s doubling, capped at 60 s, 5 attempts. */
export const HERMES_BACKOFF: Backoff = { baseMs: 1000, maxMs: 60_000, maxFailures: 5 };

export interface ChildOptions {
  /** Resolved at every start, so installing Hermes later needs no restart of the daemon. */
  command: () => HermesCommand;
  env: Record<string, string>;
  /** Each call's deadline, and the bound on starting the child. */
  timeoutMs: number;
  log: Logger;
  version: string;
  /** Called with the child's tool list whenever it (re)connects or announces a change. */
  onTools: (tools: Tool[]) => void;
  backoff?: Backoff;
  /** A child that stays up this long has recovered: its failure count starts afresh. */
  stableMs?: number;
}

/** A failure worth telling the caller in a sentence (redacted; never the daemon's internals). */
export class MessagingUnavailable extends Error {
  override name = "MessagingUnavailable";
}

/** Largest single message read from the child (the SDK's buffer bound): a bigger one ends the connection, not the daemon. */
const MAX_CHILD_MESSAGE_BYTES = 16 * 1024 * 1024;
/** How long a suspected hang gets to answer a ping before the child is killed. */
const PING_MS = 5000;
/** A call arriving while a restart is scheduled waits for it if it is this close, else is told when. */
const WAIT_FOR_RESTART_MS = 5000;

interface Connection {
  client: Client;
  transport: StdioClientTransport;
  /** Set when we close it ourselves (shutdown, or killing a hung child), so its exit is not taken for a crash. */
  closing: boolean;
  stableTimer: ReturnType<typeof setTimeout> | null;
}

export class HermesChild {
  private connection: Connection | null = null;
  private connecting: Promise<Connection> | null = null;
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private retryAt = 0;
  private retryWaiters: (() => void)[] = [];
  private closed = false;
  private readonly backoff: Backoff;

  constructor(private readonly options: ChildOptions) {
    this.backoff = options.backoff ?? HERMES_BACKOFF;
  }

  /** Whether a child is running right now (for doctor and tests). */
  get running(): boolean {
    return this.connection !== null;
  }

  /** The pid of the running child, if any. */
  get pid(): number | null {
    return this.connection?.transport.pid ?? null;
  }

  /** The live connection: the running child, the one starting, the restart due shortly, or a fresh start. */
  private async connect(): Promise<Connection> {
    if (this.closed) throw new MessagingUnavailable("hermes-mcp is shutting down");
    if (this.connection) return this.connection;
    if (this.connecting) return this.connecting;
    if (this.retryTimer) {
      const wait = this.retryAt - performance.now();
      if (wait > WAIT_FOR_RESTART_MS) {
        throw new MessagingUnavailable(
          `Hermes's messaging server (hermes mcp serve) stopped ${this.failures} time(s) in a row; hermes-mcp restarts it in ${Math.ceil(wait / 1000)} s — try again then, and see the hermes-mcp log if it keeps failing`,
        );
      }
      await new Promise<void>((resolve) => this.retryWaiters.push(resolve));
      return this.connect();
    }
    // Given up after too many failures in a row: a call is the owner asking again, so start afresh.
    if (this.failures >= this.backoff.maxFailures) this.failures = 0;
    this.connecting = this.start().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async start(): Promise<Connection> {
    const command = this.options.command();
    if (!command.ok) {
      // Nothing to restart: a missing command is a configuration problem, reported on every call until fixed.
      throw new MessagingUnavailable(`messaging is unavailable: ${command.problem} — ${command.fix}`);
    }
    // The client SDK (a second copy of the MCP core, several MiB once evaluated) loads with the first child, not with
    // the daemon: a daemon whose callers never use messaging never pays for it.
    const [{ Client }, { StdioClientTransport }] = await Promise.all([
      import("@modelcontextprotocol/client"),
      import("@modelcontextprotocol/client/stdio"),
    ]);
    const transport = new StdioClientTransport({
      command: command.command,
      args: command.args,
      env: this.options.env,
      stderr: "pipe",
      maxBufferSize: MAX_CHILD_MESSAGE_BYTES,
    });
    this.forwardStderr(transport);
    const client = new Client({ name: "hermes-mcp", version: this.options.version });
    const connection: Connection = { client, transport, closing: false, stableTimer: null };
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      if (this.connection === connection) void this.refreshTools(connection);
    });
    transport.onclose = () => this.onExit(connection);
    const bound = Math.min(this.options.timeoutMs, 30_000);
    try {
      await client.connect(transport, { timeout: bound });
      const { tools } = await client.listTools(undefined, { timeout: bound });
      if (this.closed) throw new MessagingUnavailable("hermes-mcp is shutting down");
      this.connection = connection;
      this.options.log.info("messaging: hermes mcp serve started", { pid: transport.pid, tools: tools.length });
      connection.stableTimer = setTimeout(() => {
        this.failures = 0;
      }, this.options.stableMs ?? 60_000);
      connection.stableTimer.unref?.();
      this.options.onTools(tools);
      return connection;
    } catch (error) {
      connection.closing = true;
      await transport.close().catch(() => undefined);
      if (error instanceof MessagingUnavailable) throw error;
      const reason = redactCredentials((error as Error).message);
      this.options.log.warn("messaging: hermes mcp serve did not start", { command: command.command, error: reason });
      this.failed();
      throw new MessagingUnavailable(
        `Hermes's messaging server (${command.command} ${command.args.join(" ")}) did not start: ${reason} — run \`hermes-mcp doctor\` on the machine`,
      );
    }
  }

  /** The child's stderr, line by line, to the log at DEBUG (redacted: it may echo configuration). */
  private forwardStderr(transport: StdioClientTransport): void {
    let pending = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = (lines.pop() ?? "").slice(-4096);
      for (const line of lines)
        if (line.trim() !== "") this.options.log.debug("hermes mcp serve", { stderr: redactCredentials(line.slice(0, 2000)) });
    });
  }

  private onExit(connection: Connection): void {
    if (connection.stableTimer) clearTimeout(connection.stableTimer);
    const wasCurrent = this.connection === connection;
    if (wasCurrent) this.connection = null;
    if (connection.closing || this.closed || !wasCurrent) return;
    this.options.log.warn("messaging: hermes mcp serve exited unexpectedly", { failures_in_a_row: this.failures + 1 });
    this.failed();
  }

  /** One more failure in a row: schedule the next start with backoff, or give up until the next call. */
  private failed(): void {
    this.failures += 1;
    if (this.closed) return;
    if (this.failures >= this.backoff.maxFailures) {
      this.options.log.warn("messaging: hermes mcp serve keeps failing; not restarting it until the next messaging call", {
        failures_in_a_row: this.failures,
      });
      this.releaseWaiters();
      return;
    }
    const delay = Math.min(this.backoff.baseMs * 2 ** (this.failures - 1), this.backoff.maxMs);
    // Monotonic, like the timer it describes: a clock set back must not make the wait read as days.
    this.retryAt = performance.now() + delay;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.connecting && !this.closed) {
        const attempt = this.start().finally(() => {
          this.connecting = null;
        });
        // A failed restart is logged and counted by start(); waiting callers see its error through connect().
        attempt.catch(() => undefined);
        this.connecting = attempt;
      }
      this.releaseWaiters();
    }, delay);
  }

  private releaseWaiters(): void {
    const waiters = this.retryWaiters.splice(0);
    for (const wake of waiters) wake();
  }

  private async refreshTools(connection: Connection): Promise<void> {
    try {
      const { tools } = await connection.client.listTools(undefined, { timeout: this.options.timeoutMs });
      if (this.connection === connection) this.options.onTools(tools);
    } catch (error) {
      this.options.log.warn("messaging: could not refresh Hermes's tool list", { error: redactCredentials((error as Error).message) });
    }
  }

  /** Starts the child when needed and returns its current tool list. */
  async listTools(): Promise<Tool[]> {
    const connection = await this.connect();
    const { tools } = await connection.client.listTools(undefined, { timeout: this.options.timeoutMs });
    return tools;
  }

  /** Ensures the child runs (its tool list arrives through `onTools`). */
  async ensureStarted(): Promise<void> {
    await this.connect();
  }

  /**
   * Calls one of the child's tools within the per-call timeout. Failures come back as MessagingUnavailable with a
   * sentence a person can act on; a call that times out on a child that no longer answers pings kills the child.
   */
  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const connection = await this.connect();
    try {
      const result = (await connection.client.callTool(
        { name, arguments: args },
        { signal, timeout: this.options.timeoutMs, maxTotalTimeout: this.options.timeoutMs },
      )) as CallToolResult;
      this.failures = 0;
      return result;
    } catch (error) {
      if (signal.aborted) throw new MessagingUnavailable("the call was cancelled");
      const code = (error as { code?: unknown }).code;
      if (code === "REQUEST_TIMEOUT") {
        await this.checkHung(connection);
        throw new MessagingUnavailable(
          `Hermes's messaging server did not answer ${name} within ${Math.round(this.options.timeoutMs / 1000)} s (HERMES_MCP_MESSAGING_TIMEOUT_SECONDS)`,
        );
      }
      if (code === "CONNECTION_CLOSED" || this.connection !== connection) {
        throw new MessagingUnavailable(
          `Hermes's messaging server (hermes mcp serve) stopped during ${name}; hermes-mcp is restarting it — try the call again`,
        );
      }
      throw new MessagingUnavailable(`Hermes's messaging server refused ${name}: ${redactCredentials((error as Error).message)}`);
    }
  }

  /** After a timeout: a child that does not answer a ping either is hung — kill it, and let the backoff restart it. */
  private async checkHung(connection: Connection): Promise<void> {
    if (this.connection !== connection) return;
    try {
      await connection.client.ping({ timeout: PING_MS });
    } catch {
      if (this.connection !== connection) return;
      this.options.log.warn("messaging: hermes mcp serve stopped answering; restarting it");
      this.connection = null;
      connection.closing = true;
      if (connection.stableTimer) clearTimeout(connection.stableTimer);
      const pid = connection.transport.pid;
      await connection.transport.close().catch(() => undefined);
      // A child that ignores stdin closing and SIGTERM is not left behind.
      if (pid) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      this.failed();
    }
  }

  /** Shutdown: stops the child and any scheduled restart. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.releaseWaiters();
    const connection = this.connection ?? (await this.connecting?.catch(() => null)) ?? null;
    this.connection = null;
    if (!connection) return;
    connection.closing = true;
    if (connection.stableTimer) clearTimeout(connection.stableTimer);
    await connection.transport.close().catch(() => undefined);
  }
}
