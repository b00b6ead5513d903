// Keeps a scrolling transcript at its end while the reader is there: new output (any change of
// the content's size, not only the store's) scrolls into view; the reader scrolling up stops
// following until they come back to the end or ask to jump there.
import type { RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/** How close to the end (px) still counts as "at the bottom". */
const NEAR_END_PX = 48;

/** How long (ms) after the reader's own input a move of the view counts as theirs. */
const INPUT_MS = 1000;

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
    // touch, a key, a press on the scrollbar). The page moves the view too — rows measured at
    // another height than guessed, a shorter list clamping the view — and those moves, however
    // they interleave with the content's growth and the scroll events, do not stop following.
    // A move counts as up against where the view was last seen or put by the page (so content
    // that grew between a scroll and its event is not mistaken for one).
    pagePlaced(el);
    let input = -Infinity;
    let pressed = false;
    const touched = () => (input = performance.now());
    const press = () => {
      pressed = true;
      touched();
    };
    const release = () => (pressed = false);
    const byReader = () => pressed || performance.now() - input < INPUT_MS;
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
    const listeners: [EventTarget, string, () => unknown][] = [
      [el, "scroll", onScroll],
      [el, "wheel", touched],
      [el, "touchmove", touched],
      [el, "keydown", touched],
      [el, "pointerdown", press],
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
      set(true);
      toEnd();
    },
  };
}
