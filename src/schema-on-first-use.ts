// Zod schemas built the first time they are used, not when their module loads: a start builds only the schemas it parses.
import { z } from "zod";

/**
 * The schema `build` returns, built at its first use (a parse, a JSON Schema conversion, an unwrap) and kept: zod's
 * z.lazy, so parses, issues and JSON Schema are the same as the schema's own. Why: on a cold start each zod schema takes
 * about 16 µs to build, and serve built 537 before it listened (8.6 ms of its start-up), 365 of them only for requests
 * that may come hours later: OAuth's forms and rows, the tools' arguments and answers, the gateway's answers.
 */
export function builtOnFirstUse<T extends z.ZodType>(build: () => T): z.ZodLazy<T> {
  return z.lazy(build);
}
