import { describe, expect, test } from "bun:test";
import { describeToolEvent, ProgressTracker } from "../../src/jobs/progress.ts";

describe("ProgressTracker", () => {
  test("tracks elapsed time, the running tool, recent events (bounded) and answer length", () => {
    const t = new ProgressTracker(1_000);
    t.text("hello ");
    t.text("world");
    t.tool({ tool: "web_search", status: "running", emoji: "🔎", label: "weather", toolCallId: "1" });
    let snap = t.snapshot(4_400);
    expect(snap.elapsed_seconds).toBe(3);
    expect(snap.answer_chars).toBe(11);
    expect(snap.current_tool).toBe("🔎 web_search: weather (running)");
    t.tool({ tool: "web_search", status: "completed", toolCallId: "1" });
    snap = t.snapshot(5_000);
    expect(snap.current_tool).toBeNull();
    for (let i = 0; i < 20; i++) t.tool({ tool: `t${i}`, status: "completed" });
    snap = t.snapshot(5_000);
    expect(snap.recent_events.length).toBe(8);
    expect(snap.recent_events.at(-1)).toBe("t19 (completed)");
    expect(snap.tool_events).toBe(22);
  });

  test("a remark shows until the next tool event", () => {
    const t = new ProgressTracker(0);
    t.remark("gateway busy; retrying in 1 s");
    expect(t.snapshot(0).note).toBe("gateway busy; retrying in 1 s");
    t.tool({ tool: "x", status: "running" });
    expect(t.snapshot(0).note).toBeNull();
  });

  test("labels are cut to a readable length", () => {
    expect(describeToolEvent({ tool: "x", status: "running", label: "a".repeat(500) }).length).toBeLessThan(200);
  });
});

describe("a running tool that stays silent", () => {
  test("after more than 60 s, the note says Hermes may be waiting for an approval on a messaging platform", () => {
    const t = new ProgressTracker(0);
    t.tool({ tool: "terminal", status: "running", toolCallId: "1" }, 1_000);
    expect(t.snapshot(61_000).note).toBeNull();
    const note = t.snapshot(62_000).note;
    expect(note).toContain("silent for 61 s");
    expect(note).toContain("waiting for an approval on one of its messaging platforms");
    t.tool({ tool: "terminal", status: "completed", toolCallId: "1" }, 62_500);
    expect(t.snapshot(200_000).note).toBeNull();
  });
});
