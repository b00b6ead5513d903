// @tanstack/virtual-core wired into Preact: the transcript renders only the items near the
// view (plus a few either side), each measured once rendered, so a session of thousands of
// items lays out and paints only what the reader can see. When the items are rebuilt from
// another window of the history (`epoch`), the item at the top of the view stays in place.
import {
  elementScroll,
  measureElement,
  observeElementOffset,
  observeElementRect,
  Virtualizer,
  type VirtualItem,
} from "@tanstack/virtual-core";
import type { RefObject } from "preact";
import { pagePlaced } from "./follow.js";
import { useLayoutEffect, useReducer, useRef } from "preact/hooks";

// The library moves the view itself (an item above it measured at another height than
// guessed): that is the page's move, not the reader's, and must not stop following.
const pageScroll: typeof elementScroll = (offset, options, v) => {
  elementScroll(offset, options, v);
  if (v.scrollElement) pagePlaced(v.scrollElement);
};

/** A first guess of an item's height (px) before it is measured. */
const ESTIMATE_PX = 80;
/** Items rendered beyond each edge of the view. */
const OVERSCAN = 8;

export type ListVirtualizer = Virtualizer<HTMLDivElement, Element>;

/** How close to the end (px) counts as there (as in follow.ts). */
const NEAR_END_PX = 48;

// At the end, the view follows the end (follow.ts): an item above it measured at last must
// not move the view up (the reader would seem to have scrolled away).
function atEnd(el: HTMLDivElement | null): boolean {
  return (
    !!el && el.scrollHeight - el.scrollTop - el.clientHeight <= NEAR_END_PX
  );
}

// The library's own rule: an item measured the first time moves the view if it starts above
// it; measured again (a growing reply), only if it lies wholly above it.
function above(item: VirtualItem, v: ListVirtualizer): boolean {
  const offset = v.scrollOffset ?? 0;
  if (!v.itemSizeCache.has(item.key)) return item.start < offset;
  return item.end <= offset && v.scrollDirection !== "backward";
}

/** Where the view is: the first item it shows and how far (px) the view's top is below its start. */
interface Anchor {
  key: string;
  delta: number;
}

// The view's place before the items change (none at the live end: the view follows it there).
function anchorOf(
  v: ListVirtualizer,
  el: HTMLDivElement | null,
  live: boolean,
): Anchor | undefined {
  if (live && atEnd(el)) return undefined;
  const offset = v.scrollOffset ?? 0;
  const first = v.getVirtualItems().find((item) => item.end > offset);
  return first && { key: String(first.key), delta: offset - first.start };
}

// Puts the anchor's item back where it was in the view, in the list as it is now.
function restore(
  v: ListVirtualizer,
  el: HTMLDivElement | null,
  anchor: Anchor,
  keyOf: (index: number) => string,
): void {
  if (!el) return;
  for (let i = 0; i < v.options.count; i++)
    if (keyOf(i) === anchor.key) {
      const start = v.measurementsCache[i]?.start;
      if (start === undefined) return;
      el.scrollTop = start + anchor.delta;
      pagePlaced(el);
      return;
    }
}

// A list that gets its first items at the live end (a session just opened: the view follows
// its end) is laid out from there, not from its top: rendering the top rows first (Markdown
// and all) would be thrown away when the view moves to the end. The offset is clamped to the
// list's end; the first scroll event sets the real one.
function startAtEnd(
  v: ListVirtualizer,
  hadItems: { current: boolean },
  count: number,
  live: boolean,
): void {
  if (hadItems.current || count === 0) return;
  hadItems.current = true;
  if (live) v.scrollOffset = Number.MAX_SAFE_INTEGER;
}

// One virtualizer per list, told the count and keys on every render (as the React adapter does).
export function useVirtualizer(
  scroller: RefObject<HTMLDivElement | null>,
  count: number,
  keyOf: (index: number) => string,
  scrollMargin: number,
  epoch = 0,
  live = true,
): ListVirtualizer {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const ref = useRef<ListVirtualizer | null>(null);
  const seen = useRef({ epoch, anchor: undefined as Anchor | undefined });
  const isLive = useRef(live);
  isLive.current = live;
  if (ref.current && seen.current.epoch !== epoch)
    seen.current = {
      epoch,
      anchor: anchorOf(ref.current, scroller.current, live),
    };
  const options = {
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => ESTIMATE_PX,
    getItemKey: keyOf,
    overscan: OVERSCAN,
    scrollMargin,
    scrollToFn: pageScroll,
    observeElementRect,
    observeElementOffset,
    measureElement,
    onChange: () => rerender(0),
  };
  if (!ref.current) {
    ref.current = new Virtualizer<HTMLDivElement, Element>(options);
    ref.current.shouldAdjustScrollPositionOnItemSizeChange = (item, _d, v) =>
      !(isLive.current && atEnd(scroller.current)) && above(item, v);
  } else ref.current.setOptions(options);
  const v: ListVirtualizer = ref.current;
  startAtEnd(v, useRef(count > 0), count, live);
  useLayoutEffect(() => v._didMount(), [v]);
  useLayoutEffect(() => v._willUpdate());
  useLayoutEffect(() => {
    const { anchor } = seen.current;
    seen.current.anchor = undefined;
    if (anchor) restore(v, scroller.current, anchor, keyOf);
  }, [epoch]);
  return v;
}
