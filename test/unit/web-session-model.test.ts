// The web page's session model (src/web/state/session-model.ts): what a stream of
// session/update notifications becomes, and that a replay overlapping what was shown (after a
// reconnect) adds nothing twice.
import { describe, expect, it } from "vitest";
import { backOff } from "../../src/web/state/hub-link.js";
import {
  applyUpdate,
  currentPlan,
  MAX_ITEMS,
  modeOption,
  newModel,
} from "../../src/web/state/session-model.js";

const up = (seq: number | undefined, update: Record<string, unknown>) => ({
  sessionId: "s",
  update,
  ...(seq === undefined ? {} : { _meta: { acphub: { seq } } }),
});
const chunk = (seq: number, text: string, kind = "agent_message_chunk") =>
  up(seq, { sessionUpdate: kind, content: { type: "text", text } });

describe("the web page's session model", () => {
  it("ignores updates at or below the last sequence number applied", () => {
    const m = newModel("s");
    expect(applyUpdate(m, chunk(1, "a"))).toBe(true);
    expect(applyUpdate(m, chunk(2, "b"))).toBe(true);
    expect(applyUpdate(m, chunk(2, "b"))).toBe(false);
    expect(applyUpdate(m, chunk(1, "a"))).toBe(false);
    expect(applyUpdate(m, chunk(3, "c"))).toBe(true);
    expect(m.items.map((i) => [i.kind, i.text])).toEqual([["agent", "abc"]]);
    expect(m.lastSeq).toBe(3);
  });

  it("joins a prompt's blocks (one seq) into one user message, separate from the next prompt", () => {
    const m = newModel("s");
    applyUpdate(m, chunk(1, "one", "user_message_chunk"));
    applyUpdate(
      m,
      up(1, {
        sessionUpdate: "user_message_chunk",
        content: { type: "text", text: "two" },
      }),
    );
    applyUpdate(m, chunk(2, "reply"));
    applyUpdate(m, chunk(3, "next", "user_message_chunk"));
    expect(m.items.map((i) => [i.kind, i.text])).toEqual([
      ["user", "one"],
      ["agent", "reply"],
      ["user", "next"],
    ]);
  });

  it("merges tool call updates by id (an update for an unannounced id makes a card), replaces the plan, skips empty text", () => {
    const m = newModel("s");
    applyUpdate(
      m,
      up(1, {
        sessionUpdate: "tool_call_update",
        toolCallId: "x",
        status: "in_progress",
      }),
    );
    applyUpdate(
      m,
      up(2, {
        sessionUpdate: "tool_call",
        toolCallId: "t",
        title: "Edit",
        kind: "edit",
        status: "pending",
      }),
    );
    applyUpdate(
      m,
      up(3, {
        sessionUpdate: "tool_call_update",
        toolCallId: "t",
        status: "completed",
        title: null,
      }),
    );
    applyUpdate(
      m,
      up(4, {
        sessionUpdate: "plan",
        entries: [{ content: "a", status: "pending" }],
      }),
    );
    applyUpdate(
      m,
      up(5, {
        sessionUpdate: "plan",
        entries: [{ content: "a", status: "completed" }],
      }),
    );
    applyUpdate(m, chunk(6, ""));
    applyUpdate(m, up(7, { sessionUpdate: "some_future_variant", x: 1 }));
    expect(m.items.map((i) => i.id)).toEqual(["tool-x", "tool-t"]);
    expect(m.tools.get("t")!.call).toEqual({
      toolCallId: "t",
      title: "Edit",
      kind: "edit",
      status: "completed",
    });
    expect(m.plan).toEqual([{ content: "a", status: "completed" }]);
    expect(m.count).toBe(7);
  });
});

describe("what the page shows of a session (issue 25)", () => {
  it("acphub's notices sent as agent text become their own item, between the agent's words", () => {
    const m = newModel("s");
    applyUpdate(m, chunk(1, "…hello.txt"));
    applyUpdate(m, chunk(2, "[acphub] acphub resumed this session\n"));
    applyUpdate(m, chunk(3, "More words."));
    applyUpdate(
      m,
      up(4, { sessionUpdate: "notice", severity: "info", title: "A notice" }),
    );
    expect(m.items.map((i) => [i.kind, i.text])).toEqual([
      ["agent", "…hello.txt"],
      ["notice", "acphub resumed this session"],
      ["agent", "More words."],
      ["notice", "A notice"],
    ]);
  });

  it("a mode change moves the config option for the mode; the plan is current only for its prompt", () => {
    const m = newModel("s");
    m.modes = { currentModeId: "ask", availableModes: [] };
    m.configOptions = [
      {
        id: "mode",
        category: "mode",
        type: "select",
        currentValue: "ask",
        options: [{ value: "ask" }, { value: "code" }],
      },
    ];
    expect(modeOption(m)?.["id"]).toBe("mode");
    applyUpdate(
      m,
      up(1, { sessionUpdate: "current_mode_update", currentModeId: "code" }),
    );
    expect(m.configOptions[0]!["currentValue"]).toBe("code");
    applyUpdate(m, chunk(2, "first", "user_message_chunk"));
    applyUpdate(
      m,
      up(3, { sessionUpdate: "plan", entries: [{ content: "x" }] }),
    );
    expect(currentPlan(m)).toEqual([{ content: "x" }]);
    applyUpdate(m, chunk(4, "second", "user_message_chunk"));
    expect(currentPlan(m)).toBeUndefined();
  });

  it("reconnect waits grow to 15 s with jitter: never more than 5 attempts in 10 s", () => {
    for (const r of [0, 0.5, 1]) {
      const random = Math.random;
      Math.random = () => r;
      try {
        const waits = [1, 2, 3, 4, 5, 6, 7].map(backOff);
        // Attempt 1 at 0 ms, attempt n+1 after the waits before it.
        const at = waits.map((_, i) =>
          waits.slice(0, i).reduce((a, b) => a + b, 0),
        );
        for (const start of at)
          expect(
            at.filter((t) => t >= start && t < start + 10_000).length,
          ).toBeLessThanOrEqual(5);
        expect(Math.max(...waits)).toBeLessThanOrEqual(15_000);
      } finally {
        Math.random = random;
      }
    }
  });

  it("keeps at most MAX_ITEMS (and 1,000) items: the oldest dropped, counted in one notice at the top", () => {
    const m = newModel("s");
    const tool = (seq: number) =>
      up(seq, {
        sessionUpdate: "tool_call",
        toolCallId: `c${seq}`,
        title: `call ${seq}`,
      });
    const total = 3 * MAX_ITEMS;
    for (let seq = 1; seq <= total; seq++)
      applyUpdate(m, seq % 2 ? tool(seq) : chunk(seq, `text ${seq}`));
    expect(m.items.length).toBeLessThanOrEqual(MAX_ITEMS + 1_001);
    expect(m.tools.size).toBeLessThanOrEqual(m.items.length);
    expect(m.items[0]!.kind).toBe("notice");
    expect(m.items[0]!.text).toContain(
      `${m.dropped.toLocaleString("en")} earlier items are not shown`,
    );
    expect(m.dropped + m.items.length - 1).toBe(total);
    expect(m.items.at(-1)!.text).toBe(`text ${total}`);
    // A tool call still kept merges its update as before.
    const kept = m.items.at(-2)!;
    applyUpdate(
      m,
      up(total + 1, {
        sessionUpdate: "tool_call_update",
        toolCallId: kept.call!["toolCallId"],
        status: "completed",
      }),
    );
    expect(kept.call!["status"]).toBe("completed");
  });
});
