// Unit tests for the streamed-chunk reader: it accepts and rejects exactly what the zod schema it replaced did, field by field.
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { errorFieldSchema, hermesSchema, readStreamChunk, usageSchema } from "../../src/gateway/stream-chunk.ts";

/** The zod schema the hand-written reader replaced (the specification it must keep). */
const ORACLE = z.object({
  choices: z
    .array(z.object({ delta: z.object({ content: z.string().nullish() }).nullish(), finish_reason: z.string().nullish() }))
    .nullish(),
  usage: usageSchema.nullish().catch(null),
  hermes: hermesSchema.nullish().catch(null),
  error: errorFieldSchema.nullish().catch(null),
});

const ABSENT = Symbol("absent");
/** Values for a field: absent, null, the right kinds, and wrong kinds (numbers, booleans, arrays, objects). */
const ODD: unknown[] = [ABSENT, null, 0, 1.5, true, "", "x", [], ["x"], {}];
const contents: unknown[] = [...ODD];
const finishReasons: unknown[] = [...ODD, "stop", "length"];
const deltas: unknown[] = [...ODD, ...contents.map((content) => withField({}, "content", content)), { content: "a", role: "assistant" }];
const choiceValues: unknown[] = [
  ...ODD,
  ...deltas.flatMap((delta) => finishReasons.map((reason) => withField(withField({ index: 0 }, "delta", delta), "finish_reason", reason))),
];
const usages: unknown[] = [...ODD, { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }, { prompt_tokens: 1 }];
const hermesValues: unknown[] = [...ODD, { completed: false, error_code: "max_iterations" }, { completed: "no" }];
const errors: unknown[] = [...ODD, { code: "boom" }, { code: 7 }, { message: "no code" }];

function withField(base: Record<string, unknown>, name: string, value: unknown): Record<string, unknown> {
  return value === ABSENT ? { ...base } : { ...base, [name]: value };
}

/** What a consumer reads off a chunk: every delta, every finish reason, and the extras (absent and null alike). */
function reading(chunk: {
  choices?: readonly { delta?: { content?: string | null } | null; finish_reason?: string | null }[] | null;
  usage?: unknown;
  hermes?: unknown;
  error?: { code: unknown } | null;
}) {
  return {
    deltas: (chunk.choices ?? []).map((choice) => choice.delta?.content ?? null),
    reasons: (chunk.choices ?? []).map((choice) => choice.finish_reason ?? null),
    usage: chunk.usage ?? null,
    hermes: chunk.hermes ?? null,
    code: chunk.error?.code ?? null,
  };
}

function agreeOn(value: unknown): void {
  const oracle = ORACLE.safeParse(value);
  const read = readStreamChunk(value);
  expect({ value, accepted: read !== null }).toEqual({ value, accepted: oracle.success });
  if (read && oracle.success) expect(reading(read)).toEqual(reading(oracle.data));
}

describe("readStreamChunk", () => {
  test("agrees with the zod schema on every combination of choice, delta, content and finish reason", () => {
    for (const choice of choiceValues) {
      agreeOn({ choices: [choice] });
      agreeOn({ choices: [{ delta: { content: "ok" } }, choice] });
    }
    expect(choiceValues.length).toBeGreaterThan(100);
  });

  test("agrees on the top level: not an object, choices of every kind, and the final chunk's extras", () => {
    for (const top of [...ODD, "[DONE]", [{ choices: [] }]]) if (top !== ABSENT) agreeOn(top);
    for (const choices of ODD) agreeOn(withField({ id: "chatcmpl-1" }, "choices", choices));
    for (const usage of usages) agreeOn(withField({ choices: [] }, "usage", usage));
    for (const hermes of hermesValues) agreeOn(withField({ choices: [] }, "hermes", hermes));
    for (const error of errors) agreeOn(withField({ choices: [] }, "error", error));
  });

  test("reads a gateway's final chunk: its finish reason, usage and Hermes facts", () => {
    const chunk = readStreamChunk({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: {}, finish_reason: "length" }],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
      hermes: { completed: false, error_code: "max_iterations" },
    });
    expect(chunk?.choices[0]?.finish_reason).toBe("length");
    expect(chunk?.usage).toEqual({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 });
    expect(chunk?.hermes).toEqual({ completed: false, error_code: "max_iterations" });
    expect(chunk?.error).toBeNull();
  });

  test("a wrongly shaped extra is ignored, a wrongly shaped choice makes the chunk unreadable", () => {
    expect(readStreamChunk({ choices: [{ delta: { content: "hi" } }], usage: { prompt_tokens: "many" } })?.usage).toBeNull();
    expect(readStreamChunk({ choices: [{ delta: { content: 42 } }] })).toBeNull();
    expect(readStreamChunk({ choices: { 0: { delta: { content: "hi" } } } })).toBeNull();
  });
});
