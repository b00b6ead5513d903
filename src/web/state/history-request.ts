// What the page asks `_acphub/history` for: page sizes and the newest page of a session. Kept
// apart from the window's code so that the page's first script can ask for the newest page
// while the rest of the page still loads.
import type { HubSocket } from "../acp/hub-client.js";
import { HUB_METHOD, type HistoryAnswer } from "../../shared/hub-extension.js";

export const HISTORY = HUB_METHOD.history;
/** Events asked for in one page, and UTF-8 bytes of stored text. */
export const PAGE_EVENTS = 500;
/** Events in the first page, the screen shown when a session opens (more follow on demand). */
export const FIRST_PAGE_EVENTS = 150;
export const PAGE_BYTES = 512 * 1024;

/** A page as `_acphub/history` answers it. */
export type HistoryPage = HistoryAnswer;

/** The newest page of a session (its first screen). */
export function newestPage(
  socket: Pick<HubSocket, "request">,
  sessionId: string,
): Promise<HistoryPage> {
  return socket.request<HistoryPage>(HISTORY, {
    sessionId,
    limit: FIRST_PAGE_EVENTS,
    maxBytes: PAGE_BYTES,
  });
}
