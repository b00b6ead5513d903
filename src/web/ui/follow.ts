// Keeps a scrolling transcript at its end while the reader is there: new output (any change of
// the content's size, not only the store's) scrolls into view; scrolling up stops following
// until the reader comes back to the end or asks to jump there.
import type { RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/** How close to the end (px) still counts as "at the bottom". */
const NEAR_END_PX = 48;

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
    if (el) el.scrollTop = el.scrollHeight;
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
    // Only the reader moves the view up (the page only ever scrolls down, to the end), so
    // content that grew between a scroll and its event does not count as leaving the end.
    let lastTop = el.scrollTop;
    const onScroll = () => {
      const gap = el.scrollHeight - el.scrollTop - el.clientHeight;
      const up = el.scrollTop < lastTop - 1;
      lastTop = el.scrollTop;
      if (gap <= NEAR_END_PX) {
        if (!follow.current) set(true);
      } else if (up && follow.current) set(false);
    };
    const grew = new ResizeObserver(
      () => follow.current && isLive.current && toEnd(),
    );
    grew.observe(inner);
    grew.observe(el);
    el.addEventListener("scroll", onScroll, { passive: true });
    return () => {
      grew.disconnect();
      el.removeEventListener("scroll", onScroll);
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
