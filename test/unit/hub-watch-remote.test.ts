// Issue 38: a question of a turn another node runs waits for an answer from the person who
// prompted it (the stored prompt's author), not "another client", on the node that shows it.
import { describe, expect, it } from "vitest";
import { Attachments } from "../../src/hub/attachments.js";
import { HubWatch } from "../../src/hub/watch.js";

describe("HubWatch, a turn another node runs", () => {
  it("names the prompt's author while its question waits, and forgets it once the turn ended", () => {
    const watch = new HubWatch(new Attachments(), () => true);
    watch.started("s1", "alice");
    watch.asked("s1", 1);
    expect(watch.listed("s1")).toEqual({
      running: true,
      state: "waiting",
      askedOf: "alice",
    });
    watch.asked("s1", -1);
    watch.ended("s1", { stopReason: "end_turn" });
    watch.started("s1");
    watch.asked("s1", 1);
    expect(watch.listed("s1")).toEqual({ running: true, state: "waiting" });
  });
});
