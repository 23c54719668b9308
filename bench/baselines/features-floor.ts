// The runtime features `hermes-mcp serve` uses on its way to idle, and none of its work: the idle-RSS floor its choices of Bun features set.
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Hono } from "hono";
import { LinearRouter } from "hono/router/linear-router";
import { z } from "zod";
import { idleCollector } from "../../src/idle-collector.ts";
import { memoryGiveBack } from "../../src/memory-give-back.ts";

/*
 * Compiled with the release flags and run like the daemon (bench/memory.ts), step for step: a bare `serve` argument read
 * as the daemon's entry reads it (no command-line parser, src/cli/index.ts), the environment checked by a zod schema,
 * a log line through Bun.stderr, an exclusive SQLite lock and a holder file, a WAL database with a table and prepared
 * statements, a random key and a hash (Web Crypto and Bun's hasher, as src/crypto/primitives.ts), a Hono app (its linear router, as the daemon's) behind Bun.serve's routes, one HTTP/1.1
 * request to the gateway over Bun.connect, signal handlers; and once quiet, memory given back as `serve` gives it (the
 * daemon's own idle collector and src/memory-give-back.ts, the only code of its own the floor runs: without them the
 * floor would keep what the daemon hands back). What differs from the daemon's figure is the daemon's own code and data.
 */
const Env = z.object({
  BIND_PORT: z.coerce.number().int().min(0).max(65_535).default(0),
  HOME: z.string().min(1),
  BENCH_GATEWAY_URL: z.url().optional(),
  LOG_LEVEL: z.enum(["DEBUG", "INFO", "WARNING", "ERROR"]).default("INFO"),
});

function serve(): Promise<never> {
  const env = Env.parse(process.env);
  const log = Bun.stderr.writer();
  const dir = join(env.HOME, "floor-data");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // As the daemon looks for its .env files: the bench's fresh HOME has none, so neither reads one.
  if (existsSync(join(dir, ".env"))) readFileSync(join(dir, ".env"), "utf8");

  const lock = new Database(join(dir, "floor.db.lock"), { create: true });
  lock.exec("BEGIN EXCLUSIVE");
  writeFileSync(join(dir, "holder.tmp"), JSON.stringify({ pid: process.pid }));
  renameSync(join(dir, "holder.tmp"), join(dir, "holder.json"));

  const db = new Database(join(dir, "floor.db"), { create: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  statSync(join(dir, "floor.db"));
  const put = db.query("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)");
  const get = db.query<{ value: string }, [string]>("SELECT value FROM settings WHERE key = ?");
  const key = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  put.run("probe", new Bun.CryptoHasher("sha256").update(key).digest("base64url"));

  const app = new Hono({ router: new LinearRouter() });
  app.get("/healthz", (c) => c.json({ status: "ok", probe: get.get("probe")?.value.length }));
  app.post("/token", async (c) => c.json({ error: "invalid_request" }, 400));
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: env.BIND_PORT,
    routes: {
      "/mcp": () => {
        collector.touch();
        return new Response(null, { status: 401 });
      },
    },
    fetch: (request) => {
      collector.touch();
      return app.fetch(request);
    },
  });
  // As src/daemon.ts: SQLite's cache, a full collection and JavaScriptCore's shrink once quiet, the code pages a second later (the
  // handlers above touch it only once requests come, after this line has run).
  const collector = idleCollector(server, memoryGiveBack(db, { debug() {} }));
  collector.touch();
  if (env.LOG_LEVEL === "DEBUG" || env.LOG_LEVEL === "INFO") log.write(`listening on 127.0.0.1:${server.port}\n`);

  if (env.BENCH_GATEWAY_URL) {
    const gateway = new URL(env.BENCH_GATEWAY_URL);
    void Bun.connect({
      hostname: gateway.hostname,
      port: Number(gateway.port),
      socket: {
        open: (socket) => void socket.write(`GET /health HTTP/1.1\r\nHost: ${gateway.host}\r\nConnection: close\r\n\r\n`),
        data: () => {},
      },
    }).catch(() => {});
  }
  process.on("SIGTERM", () => process.exit(0));
  process.on("SIGINT", () => process.exit(0));
  return new Promise(() => {});
}

// argv[1] is the entry (a compiled binary's embedded one): `features-floor serve` and nothing else.
if (process.argv.length !== 3 || process.argv[2] !== "serve") {
  process.stderr.write("usage: features-floor serve\n");
  process.exit(2);
}
await serve();
