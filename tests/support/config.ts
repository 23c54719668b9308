// What loadConfig refuses, as its list of problems (empty when the settings load).
import { ConfigError } from "../../src/config/load.ts";

export function configProblems(load: () => unknown): string[] {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
