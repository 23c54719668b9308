// The one test for a JSON object as zod's z.object and the MCP SDK accept it: an object, not null, not an array.
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
