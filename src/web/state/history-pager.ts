// Reads a session's history from the hub a page at a time (`_acphub/history`) into the open
// model's window: the newest page when a session opens, older pages when the reader nears the
// top, newer ones when they near the bottom of a window that left the live end. One read at a
// time; an answer for a session no longer open is dropped.
import { RpcError, type HubSocket, type Params } from "../acp/hub-client.js";
import { takeEarlyPage } from "../early.js";
import { addNewer, addOlder, readingForward } from "./history-window.js";
import {
  HISTORY,
  newestPage,
  PAGE_BYTES,
  PAGE_EVENTS,
  type HistoryPage,
} from "./history-request.js";
import type { SessionModel } from "./session-model.js";

export { HISTORY };

export interface PagerHost {
  model?: SessionModel;
  connection(): Promise<HubSocket>;
  /** Applies the live updates received so far (before a page is joined to them). */
  flushUpdates(): void;
  changed(): void;
}

export class HistoryPager {
  /** A read is in flight. */
  busy = false;

  constructor(private readonly host: PagerHost) {}

  /** The newest page of a session (its first screen). */
  static async newest(
    socket: HubSocket,
    sessionId: string,
  ): Promise<HistoryPage> {
    return newestPage(socket, sessionId);
  }

  // The newest page of a session being opened: the one the page's first script asked for, if
  // it asked for this session and its connection did not fail meanwhile, else read now.
  static async opening(
    socket: HubSocket,
    sessionId: string,
  ): Promise<HistoryPage> {
    const early = takeEarlyPage(sessionId);
    if (!early) return HistoryPager.newest(socket, sessionId);
    try {
      return await early;
    } catch (error) {
      if (error instanceof RpcError) throw error;
      return HistoryPager.newest(socket, sessionId);
    }
  }

  /** The page before the window, put in front of it. */
  older(): void {
    const m = this.host.model;
    if (!m?.window.hasOlder) return;
    void this.read(m, { beforeSeq: m.window.firstSeq }, (page) =>
      addOlder(m, page),
    );
  }

  /** The page after the window, when it does not reach the live end. */
  newer(): void {
    const m = this.host.model;
    if (!m || m.window.atLive) return;
    readingForward(m);
    void this.read(m, { afterSeq: m.window.endSeq, from: "oldest" }, (page) =>
      addNewer(m, page),
    );
  }

  /** The newest page in place of the window (Jump to latest from far up). */
  latest(): void {
    const m = this.host.model;
    if (!m || m.window.atLive) return;
    readingForward(m);
    void this.read(m, {}, (page) => addNewer(m, page, true));
  }

  private async read(
    m: SessionModel,
    params: Params,
    join: (page: HistoryPage) => void,
  ): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const socket = await this.host.connection();
      const page = await socket.request<HistoryPage>(HISTORY, {
        sessionId: m.sessionId,
        limit: PAGE_EVENTS,
        maxBytes: PAGE_BYTES,
        ...params,
      });
      if (this.host.model !== m) return;
      this.host.flushUpdates();
      join(page);
    } catch {
      // The connection dropped: the reader's next scroll asks again.
    } finally {
      this.busy = false;
      this.host.changed();
    }
  }
}
