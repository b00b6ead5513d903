// The web page's session model (src/web/state/session-model.ts): what a stream of
// session/update notifications becomes, and that a replay overlapping what was shown (after a
// reconnect) adds nothing twice.
import { describe, expect, it } from "vitest";
import { backOff } from "../../src/web/state/hub-link.js";
import {
  applyUpdate,
  currentPlan,
  modeOption,
  newModel,
} from "../../src/web/state/session-model.js";
import {
  addNewer,
  addOlder,
  PAGE_EVENTS,
  readingForward,
  receive,
  startWindow,
  WINDOW_UPDATES,
} from "../../src/web/state/history-window.js";

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

  it("a notice as the hub sends it (marked, on a line of its own) is its own item, live and in the window (issue 38)", () => {
    const m = newModel("s");
    startWindow(m, { updates: [], firstSeq: null, lastSeq: null, more: false });
    const notice = {
      sessionId: "s",
      update: {
        sessionUpdate: "agent_message_chunk",
        content: {
          type: "text",
          text: "\n[acphub] 85 % of the budget is used\n",
        },
      },
      _meta: { acphub: { seq: 2, notice: { severity: "warning" } } },
    };
    receive(m, chunk(1, "The answer."));
    receive(m, notice);
    receive(m, chunk(3, "Next turn."));
    const shown = [
      ["agent", "The answer."],
      ["notice", "85 % of the budget is used"],
      ["agent", "Next turn."],
    ];
    expect(m.items.map((i) => [i.kind, i.text])).toEqual(shown);
    // The window keeps the notice apart, so items rebuilt from it (a reload, paging) match.
    expect(m.window.updates.length).toBe(3);
    const again = newModel("s");
    for (const p of m.window.updates) applyUpdate(again, p);
    expect(again.items.map((i) => [i.kind, i.text])).toEqual(shown);
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

  it("holds a bounded window of a long history: live updates past it let the oldest go, tool calls still merge", () => {
    const m = newModel("s");
    startWindow(m, { updates: [], firstSeq: null, lastSeq: null, more: false });
    const tool = (seq: number) =>
      up(seq, {
        sessionUpdate: "tool_call",
        toolCallId: `c${seq}`,
        title: `call ${seq}`,
      });
    const total = 3 * WINDOW_UPDATES;
    for (let seq = 1; seq <= total; seq++)
      receive(m, seq % 2 ? tool(seq) : chunk(seq, `text ${seq}`));
    expect(m.window.updates.length).toBeLessThanOrEqual(
      WINDOW_UPDATES + PAGE_EVENTS,
    );
    expect(m.items.length).toBe(m.window.updates.length);
    expect(m.tools.size).toBeLessThanOrEqual(m.items.length);
    expect(m.window.hasOlder).toBe(true);
    expect(m.items.at(-1)!.text).toBe(`text ${total}`);
    const kept = m.items.at(-2)!;
    receive(
      m,
      up(total + 1, {
        sessionUpdate: "tool_call_update",
        toolCallId: kept.call!["toolCallId"],
        status: "completed",
      }),
    );
    expect(m.items.at(-2)!.call!["status"]).toBe("completed");
  });

  it("joins a long streamed reply into one update of the window: the whole text stays", () => {
    const m = newModel("s");
    startWindow(m, { updates: [], firstSeq: null, lastSeq: null, more: false });
    const total = 3 * WINDOW_UPDATES;
    for (let seq = 1; seq <= total; seq++) receive(m, chunk(seq, "x"));
    receive(m, chunk(total + 1, "[acphub] a notice"));
    receive(m, chunk(total + 2, "y"));
    expect(m.window.updates.length).toBe(3);
    expect(m.items.map((i) => [i.kind, i.text.length])).toEqual([
      ["agent", total],
      ["notice", 8],
      ["agent", 1],
    ]);
    expect(m.window.hasOlder).toBe(false);
  });

  it("pages older history in front and newer behind; live updates that came meanwhile join once each, in order", () => {
    const m = newModel("s");
    const page = (from: number, to: number, more: boolean) => ({
      updates: Array.from({ length: to - from + 1 }, (_, i) =>
        chunk(
          from + i,
          `${from + i} `,
          i % 2 ? "agent_thought_chunk" : undefined,
        ),
      ),
      firstSeq: from,
      lastSeq: to,
      more,
    });
    startWindow(m, page(2 * WINDOW_UPDATES + 1, 2 * WINDOW_UPDATES + 10, true));
    const ids = m.items.map((i) => i.id);
    // Older pages up to a full window: the newest let go, the window no longer live.
    for (
      let to = 2 * WINDOW_UPDATES;
      to > WINDOW_UPDATES - PAGE_EVENTS;
      to -= PAGE_EVENTS
    )
      addOlder(m, page(to - PAGE_EVENTS + 1, to, true));
    expect(m.window.atLive).toBe(false);
    expect(m.window.updates.length).toBe(WINDOW_UPDATES);
    expect(m.items.map((i) => i.id)).not.toEqual(expect.arrayContaining(ids));
    // Live updates while away, then the newest page read again: each once, in order.
    readingForward(m);
    const end = 2 * WINDOW_UPDATES + 10;
    for (let seq = end - 2; seq <= end + 3; seq++)
      receive(m, chunk(seq, `${seq} `));
    addNewer(m, page(end - 9, end, true), true);
    expect(m.window.atLive).toBe(true);
    receive(m, chunk(end + 3, "dup "));
    receive(m, chunk(end + 4, `${end + 4} `));
    const seqs = m.items.map((i) => Number(i.text.trim().split(" ")[0]));
    expect(m.items.map((i) => i.text).join("")).toBe(
      Array.from({ length: 14 }, (_, i) => `${end - 9 + i} `).join(""),
    );
    expect(seqs[0]).toBe(end - 9);
  });
});
