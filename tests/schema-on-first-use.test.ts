// builtOnFirstUse: nothing built until the first use, built once, and the same parses, issues and JSON Schema as the schema itself.
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { builtOnFirstUse } from "../src/schema-on-first-use.ts";

const buildSchema = () =>
  z.object({
    name: z.string().min(1, "name must not be empty").max(5).describe("A short name."),
    count: z.number().int().nullish(),
  });

describe("builtOnFirstUse", () => {
  test("builds nothing until the first parse, then once for every parse after it", () => {
    let builds = 0;
    const schema = builtOnFirstUse(() => {
      builds++;
      return buildSchema();
    });
    expect(builds).toBe(0);
    expect(schema.safeParse({ name: "ok" }).success).toBe(true);
    expect(schema.safeParse({ name: "" }).success).toBe(false);
    expect(schema.parse({ name: "x", count: 2 })).toEqual({ name: "x", count: 2 });
    expect(builds).toBe(1);
  });

  test("answers every input as the schema built at once does", () => {
    const eager = buildSchema();
    const deferred = builtOnFirstUse(buildSchema);
    const inputs: unknown[] = [
      { name: "ok" },
      { name: "" },
      { name: "toolong", count: 1.5 },
      { count: "x" },
      null,
      "text",
      { name: "a", extra: true },
    ];
    for (const input of inputs) {
      const [a, b] = [eager.safeParse(input), deferred.safeParse(input)];
      expect(b.success).toBe(a.success);
      expect(b.data).toEqual(a.data);
      expect(b.error?.issues).toEqual(a.error?.issues);
    }
  });

  test("converts to the same JSON Schema, for the SDK's tool listing", () => {
    const eager = buildSchema()["~standard"];
    const deferred = builtOnFirstUse(buildSchema)["~standard"];
    for (const target of ["draft-2020-12", "draft-07"] as const) {
      expect(deferred.jsonSchema.input({ target })).toEqual(eager.jsonSchema.input({ target }));
      expect(deferred.jsonSchema.output({ target })).toEqual(eager.jsonSchema.output({ target }));
    }
  });

  test("unwraps to the schema itself, so a schema can extend it", () => {
    const base = builtOnFirstUse(buildSchema);
    const extended = builtOnFirstUse(() => base.unwrap().extend({ more: z.boolean() }));
    expect(extended.safeParse({ name: "ok", more: true }).success).toBe(true);
    expect(extended.safeParse({ name: "ok" }).success).toBe(false);
  });
});
