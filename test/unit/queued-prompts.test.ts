// How a queued prompt's two events are shown (issue 37): one notice each, from the one conversion
// of stored events (live, replay, pages, the cluster's feed), with the facts in `_meta.acphub`;
// the page's model keeps the line from them, and `sessions show` reads them as one line each.
import { describe, expect, it } from "vitest";
import { queueText } from "../../src/app/queue-text.js";
import { shownUpdates } from "../../src/engine/wire-updates.js";
import type { StoredEvent } from "../../src/engine/ledger-port.js";
import { applyUpdate, newModel } from "../../src/web/state/session-model.js";

const queued = (queueId: string, text: string): StoredEvent => ({
  seq: 0,
  kind: "prompt_queued",
  text: JSON.stringify({
    queueId,
    prompt: [{ type: "text", text }],
    author: "bob",
  }),
  at: 0,
});
const dequeued = (
  queueId: string,
  reason: string,
  by?: string,
): StoredEvent => ({
  seq: 0,
  kind: "prompt_dequeued",
  text: JSON.stringify({ queueId, reason, ...(by ? { by } : {}) }),
  at: 0,
});

describe("queued prompts as clients see them", () => {
  it("a notice each, agent text for hub clients and a notice update for editors that take one", () => {
    const [hub] = shownUpdates(queued("q-1", "run the tests"), false)!;
    expect(hub).toMatchObject({
      update: {
        sessionUpdate: "agent_message_chunk",
        content: {
          text: expect.stringContaining(
            'bob queued a prompt (q-1), to run when the turn ends: "run the tests"',
          ),
        },
      },
      _meta: {
        acphub: {
          notice: { severity: "info" },
          queued: { queueId: "q-1", author: "bob" },
        },
      },
    });
    const [editor] = shownUpdates(dequeued("q-1", "revoked", "alice"), true)!;
    expect(editor).toMatchObject({
      update: {
        sessionUpdate: "notice",
        title: "the queued prompt q-1 was revoked by alice; it will not run",
      },
      _meta: { acphub: { dequeued: { queueId: "q-1", reason: "revoked" } } },
    });
    expect(
      shownUpdates({ ...queued("q-2", "x"), text: '{"prompt":[]}' }, false),
    ).toBeUndefined();
  });

  it("the page keeps the line: queued in order, gone when started or revoked", () => {
    const m = newModel("s");
    const apply = (e: StoredEvent) =>
      applyUpdate(m, shownUpdates(e, false)![0] as Record<string, unknown>);
    apply(queued("q-1", "first"));
    apply(queued("q-2", "second"));
    expect([...m.queued.values()].map((q) => q.text)).toEqual([
      "first",
      "second",
    ]);
    apply(dequeued("q-1", "started"));
    apply(dequeued("q-2", "revoked", "alice"));
    expect(m.queued.size).toBe(0);
  });

  it("`sessions show` reads each as one line", () => {
    const line = (e: StoredEvent) =>
      queueText(
        (shownUpdates(e, false)![0] as Record<string, unknown>)["_meta"],
      );
    expect(line(queued("q-1", "run the tests"))).toBe(
      "  [queued q-1 by bob] run the tests",
    );
    expect(line(dequeued("q-1", "revoked", "alice"))).toBe(
      "  [queued q-1 revoked by alice]",
    );
    expect(line(dequeued("q-1", "dropped"))).toBe(
      "  [queued q-1 dropped: the hub stopped before it ran]",
    );
    expect(queueText({ acphub: { author: "bob" } })).toBeUndefined();
  });
});
