// Wraps a zod schema so the SDK's per-request tool registration reuses one JSON Schema instead of converting it every time.
import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import type { z } from "zod";

/**
 * The SDK builds a fresh server per request (stateless serving) and asks each tool's schema for its JSON Schema on
 * every registration; zod recomputes it each time. Same validation, memoised conversion.
 */
export function withCachedJsonSchema<T extends z.ZodType>(schema: T): StandardSchemaWithJSON<z.input<T>, z.output<T>> {
  const standard = schema["~standard"] as unknown as StandardSchemaWithJSON<z.input<T>, z.output<T>>["~standard"];
  const memo = new Map<string, Record<string, unknown>>();
  const cached =
    (io: "input" | "output") =>
    (options: { target: string }): Record<string, unknown> => {
      const key = `${io}:${options.target}`;
      let value = memo.get(key);
      if (!value) memo.set(key, (value = standard.jsonSchema[io](options as Parameters<typeof standard.jsonSchema.input>[0])));
      return value;
    };
  return { "~standard": { ...standard, jsonSchema: { input: cached("input"), output: cached("output") } } };
}
