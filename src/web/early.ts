// What the page starts before its code has loaded: the page's first script (boot.ts, a few KiB)
// dials the hub and, when the address names a session (#/s/ID), asks for its newest page of
// history, while the browser still fetches and compiles the rest of the page. The store takes
// the connection for its first dial and the page for the session it opens, each once.
import { dialHub, hubUrl, type Dialled } from "./acp/hub-client.js";
import { newestPage, type HistoryPage } from "./state/history-request.js";

interface Early {
  dial?: Promise<Dialled>;
  sessionId?: string;
  page?: Promise<HistoryPage>;
}

let early: Early = {};

/** The session an address's fragment names (`#/s/ID`), if any. */
export function sessionOfHash(hash: string): string | undefined {
  const raw = /^#\/s\/(.+)$/.exec(hash)?.[1];
  if (!raw) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Dials the hub now, and asks for the newest page of the session the address names. */
export function startEarly(location: Location): void {
  const sessionId = sessionOfHash(location.hash);
  early = { sessionId };
  early.dial = dialHub(hubUrl(location), (socket) => {
    if (!sessionId) return;
    early.page = newestPage(socket, sessionId);
    early.page.catch(() => undefined);
  });
  early.dial.catch(() => undefined);
}

/** The connection dialled early, for the first dial only. */
export function takeEarlyDial(): Promise<Dialled> | undefined {
  const dial = early.dial;
  early.dial = undefined;
  return dial;
}

/** The newest page asked for early, when it is of this session (once; asked once dialled). */
export function takeEarlyPage(
  sessionId: string,
): Promise<HistoryPage> | undefined {
  const page = early.sessionId === sessionId ? early.page : undefined;
  early.page = undefined;
  early.sessionId = undefined;
  return page;
}
