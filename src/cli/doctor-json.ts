// `doctor --json`: the same checks as one JSON object for scripts, each with its status and, when not ok, its fix.
import type { Check } from "./doctor-checks.ts";

export type CheckStatus = "ok" | "warn" | "fail";

export interface CheckJson {
  status: CheckStatus;
  title: string;
  detail?: string;
  fix?: string;
}

export function checksAsJson(checks: Check[]): string {
  const rows: CheckJson[] = checks.map((check) => ({
    status: !check.ok ? "fail" : check.warn ? "warn" : "ok",
    title: check.title,
    ...(check.detail ? { detail: check.detail } : {}),
    ...(check.fix && (!check.ok || check.warn) ? { fix: check.fix } : {}),
  }));
  return `${JSON.stringify({ ok: rows.every((row) => row.status !== "fail"), checks: rows }, null, 2)}\n`;
}
