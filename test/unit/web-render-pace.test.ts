// The page's pace for rendering a growing reply again: a long text streaming in a chunk a frame
// must not be rendered every frame (that froze the page for 13–20 s on a 210,000-character reply).
import { describe, expect, it } from "vitest";
import {
  renderWait,
  SMALL_TEXT,
  SPACING,
  type LastRender,
} from "../../src/web/ui/render-pace.js";

// Streams `frames` chunks, one a frame (16 ms), into a text that starts at `start` characters;
// each render costs `cost` ms. Returns how many renders ran and the time they took.
function stream(start: number, frames: number, cost: number) {
  const last: LastRender = { text: "", at: 0, cost: 0 };
  let now = 0;
  let renders = 0;
  let busy = 0;
  let text = "A".repeat(start);
  for (let i = 0; i < frames; i++) {
    text += "x";
    now = Math.max(now, i * 16);
    if (renderWait(last, text, now) > 0) continue;
    renders += 1;
    busy += cost;
    Object.assign(last, { text, at: now + cost, cost });
    now += cost;
  }
  return { renders, busy, elapsed: now };
}

describe("renderWait", () => {
  it("renders a short text on every change", () => {
    const { renders } = stream(100, 500, 2);
    expect(renders).toBe(500);
  });

  it("renders a long growing text at most once per SPACING times its cost", () => {
    const { renders, busy, elapsed } = stream(SMALL_TEXT * 10, 1_000, 40);
    // Every frame would be 1,000 renders and 40 s of rendering.
    expect(renders).toBeLessThan(1_000 / SPACING);
    expect(busy / elapsed).toBeLessThanOrEqual(1 / (SPACING + 1) + 0.01);
  });

  it("renders the first text of a session at once, however long", () => {
    const last: LastRender = { text: "", at: 0, cost: 0 };
    expect(renderWait(last, "A".repeat(SMALL_TEXT * 10), 0)).toBe(0);
  });

  it("waits out the rest of the pause and then renders", () => {
    const last: LastRender = {
      text: "A".repeat(SMALL_TEXT),
      at: 100,
      cost: 50,
    };
    expect(renderWait(last, `${last.text}x`, 120)).toBe(180);
    expect(renderWait(last, `${last.text}x`, 300)).toBe(0);
  });
});
