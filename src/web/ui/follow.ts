// Keeps a scrolling transcript at its end while the reader is there: new output (any change of
// the content's size, not only the store's) scrolls into view; the reader scrolling up stops
// following until they come back to the end or ask to jump there.
import type { RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/** How close to the end (px) still counts as "at the bottom". */
const NEAR_END_PX = 48;

/** How long (ms) after the reader's own input a move of the view counts as theirs. */
const INPUT_MS = 1000;

/** How long (ms) after the reader opens find-in-page (Ctrl/⌘+F, F3) a move counts as theirs:
 *  the browser's find moves the view with no input event the page can see. */
const FIND_MS = 30_000;

// Ctrl/⌘+F or F3: the browser's find-in-page.
const isFind = (e: KeyboardEvent) =>
  e.key === "F3" || ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "f");

/** Where each scroller's view was last seen (its scroll event) or put by the page. */
const lastTop = new WeakMap<Element, number>();

/** Tells that the page itself (not the reader) just moved `el`'s view: following goes on. */
export function pagePlaced(el: Element): void {
  lastTop.set(el, el.scrollTop);
}

export interface Follow {
  scroller: RefObject<HTMLDivElement | null>;
  content: RefObject<HTMLDivElement | null>;
  /** False once the reader scrolled away from the end. */
  following: boolean;
  /** Scrolls to the end and follows again. */
  jump(): void;
}

// `key` is what is shown (a session id): a new one opens at its end, following, once `ready`
// (its history replayed and rendered). While `live` is false (the page holds an older stretch
// of the history) the end is not the session's: new content there does not pull the view.
export function useFollow(key: string, ready: boolean, live = true): Follow {
  const isLive = useRef(live);
  isLive.current = live;
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const [following, setFollowing] = useState(true);
  const follow = useRef(true);
  /** Until when (performance.now()) a move up is taken for the reader's. */
  const readerUntil = useRef(-Infinity);
  const toEnd = () => {
    const el = scroller.current;
    if (!el) return;
    el.scrollTop = el.scrollHeight;
    pagePlaced(el);
  };
  const set = (on: boolean) => {
    follow.current = on;
    setFollowing(on);
  };
  useEffect(() => {
    const el = scroller.current;
    const inner = content.current;
    if (!el || !inner) return;
    set(true);
    toEnd();
    // Only the reader leaves the end: a move up within a moment of their own input (wheel,
    // touch, a key, a press on the scrollbar; after Ctrl/⌘+F until Escape or 30 s, since the
    // browser's find moves the view unseen). The page moves the view too — rows measured at
    // another height than guessed, a shorter list clamping the view — and those moves, however
    // they interleave with the content's growth and the scroll events, do not stop following.
    // A move counts as up against where the view was last seen or put by the page (so content
    // that grew between a scroll and its event is not mistaken for one).
    pagePlaced(el);
    readerUntil.current = -Infinity;
    let pressed = false;
    const touched = () => {
      const until = performance.now() + INPUT_MS;
      readerUntil.current = Math.max(readerUntil.current, until);
    };
    const press = () => {
      pressed = true;
      touched();
    };
    const release = () => (pressed = false);
    const key = (e: Event) => {
      const k = e as KeyboardEvent;
      if (isFind(k)) readerUntil.current = performance.now() + FIND_MS;
      else if (k.key === "Escape") readerUntil.current = performance.now();
    };
    const byReader = () => pressed || performance.now() < readerUntil.current;
    const onScroll = () => {
      const gap = el.scrollHeight - el.scrollTop - el.clientHeight;
      const up = el.scrollTop < (lastTop.get(el) ?? 0) - 1;
      lastTop.set(el, el.scrollTop);
      if (gap <= NEAR_END_PX) {
        if (!follow.current) set(true);
      } else if (up && follow.current && byReader()) set(false);
    };
    const grew = new ResizeObserver(
      () => follow.current && isLive.current && toEnd(),
    );
    grew.observe(inner);
    grew.observe(el);
    const listeners: [EventTarget, string, (e: Event) => unknown][] = [
      [el, "scroll", onScroll],
      [el, "wheel", touched],
      [el, "touchmove", touched],
      [el, "keydown", touched],
      [el, "pointerdown", press],
      [window, "keydown", key],
      [window, "pointerup", release],
      [window, "pointercancel", release],
    ];
    for (const [t, name, f] of listeners)
      t.addEventListener(name, f, { passive: true });
    return () => {
      grew.disconnect();
      for (const [t, name, f] of listeners) t.removeEventListener(name, f);
    };
  }, [key, ready]);
  return {
    scroller,
    content,
    following,
    jump: () => {
      readerUntil.current = -Infinity;
      set(true);
      toEnd();
    },
  };
}
