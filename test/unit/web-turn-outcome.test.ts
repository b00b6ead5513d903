// The page's words for a turn whose runner died (issue 37): "interrupted: outcome unknown",
// naming the node, from `_acphub/session/state` or a re-sent prompt's recorded answer; a
// user's cancel stays "Stopped.".
import { describe, expect, it } from "vitest";
import { cutOff, endOf } from "../../src/web/state/turn-outcome.js";
import {
  interruptedWords,
  STOP_WORDS,
  turnWords,
} from "../../src/web/ui/turn-words.js";
import type { HubStore } from "../../src/web/state/hub-store.js";

// A store as turnWords reads it: the turn, and no open session.
const storeWith = (turn: HubStore["turn"]) =>
  ({ turn, infos: new Map() }) as unknown as HubStore;

describe("the page's end of an interrupted turn", () => {
  it("says interrupted: outcome unknown, naming the node, not Stopped", () => {
    const state = {
      sessionId: "hub-1",
      running: false,
      stopReason: "cancelled",
      interrupted: "outcome_unknown",
      node: "node-a",
    };
    const turn = { running: false, own: false, ...endOf(state) };
    expect(turnWords(storeWith(turn), false)).toBe(
      "Interrupted: outcome unknown. Node node-a, which ran it, stopped while the agent worked; it may have acted (changed files, run commands) before it stopped.",
    );
    expect(interruptedWords(undefined)).toMatch(
      /^Interrupted: outcome unknown\. Acphub stopped while the agent worked/,
    );
    const answer = {
      stopReason: "cancelled",
      _meta: { acphub: { replayed: true, interrupted: true, ranOn: "node-b" } },
    };
    expect(cutOff(answer)).toEqual({ node: "node-b" });
  });

  it("a user's cancel is Stopped, as before", () => {
    const turn = {
      running: false,
      own: false,
      ...endOf({ running: false, stopReason: "cancelled" }),
    };
    expect(turn.interrupted).toBeUndefined();
    expect(turnWords(storeWith(turn), false)).toBe(STOP_WORDS["cancelled"]);
    expect(
      cutOff({
        stopReason: "cancelled",
        _meta: { acphub: { replayed: true } },
      }),
    ).toBeUndefined();
  });
});
