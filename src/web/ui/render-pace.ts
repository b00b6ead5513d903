// When a growing text is rendered again: a short one on every change; a long one (a
// 200,000-character reply streaming in) only after a pause of a few times what its last
// rendering cost, so that rendering takes at most about a fifth of the page's time and the page
// keeps answering input. The latest text is always rendered in the end (the caller's timer).

/** Texts shorter than this (characters) render on every change. */
export const SMALL_TEXT = 20_000;
/** A long text re-renders at most once per this many times its last render's cost. */
export const SPACING = 4;

/** The last rendering of one text: when it ended and what it cost, in ms. */
export interface LastRender {
  text: string;
  at: number;
  cost: number;
}

/** How long (ms) to wait before rendering `text`; 0: render now. */
export function renderWait(
  last: LastRender,
  text: string,
  now: number,
): number {
  if (last.text === "" || text.length < SMALL_TEXT) return 0;
  const wait = last.at + last.cost * SPACING - now;
  return wait <= 1 ? 0 : wait;
}
