// `_acphub/sessions/search` for the web page's sidebar: the sessions whose title or text (the
// prompts and the agent's replies, as the ledger recorded them) contain the words asked for.
// Bounded: the newest SEARCH_SESSIONS sessions, the first SEARCH_MATCHES matches.
import type { LedgerPort } from "../engine/ports.js";
import { HubError } from "../shared/errors.js";

export const SESSIONS_SEARCH = "_acphub/sessions/search";
/** Sessions looked at, newest first. */
const SEARCH_SESSIONS = 200;
/** Matches returned at most. */
const SEARCH_MATCHES = 100;

/** The session ids whose title or text holds `query` (case-insensitive), newest first. */
export async function searchSessions(
  ledger: LedgerPort,
  params: Record<string, unknown>,
): Promise<{ sessionIds: string[] }> {
  const query = params["query"];
  if (typeof query !== "string" || !query.trim())
    throw new HubError("USAGE", `${SESSIONS_SEARCH} needs a non-empty query`);
  const needle = query.trim().toLowerCase();
  const page = await ledger.listSessions({ limit: SEARCH_SESSIONS });
  const sessionIds: string[] = [];
  for (const s of page.sessions) {
    if (sessionIds.length >= SEARCH_MATCHES) break;
    if (
      s.title?.toLowerCase().includes(needle) ||
      (await textHolds(ledger, s.id, needle))
    )
      sessionIds.push(s.id);
  }
  return { sessionIds };
}

// Whether any prompt or message text recorded for a session holds the (lower-case) words.
async function textHolds(
  ledger: LedgerPort,
  sessionId: string,
  needle: string,
): Promise<boolean> {
  for (const event of await ledger.read(sessionId)) {
    if (event.kind !== "prompt" && event.kind !== "update") continue;
    if (!event.text.toLowerCase().includes(needle)) continue;
    if (textsOf(JSON.parse(event.text)).some((t) => t.includes(needle)))
      return true;
  }
  return false;
}

// The text blocks of a prompt ({prompt: [blocks]}) or a message chunk ({update: {content}}).
function textsOf(payload: {
  prompt?: { text?: unknown }[];
  update?: { content?: { text?: unknown } };
}): string[] {
  const blocks = payload.prompt ?? [payload.update?.content ?? {}];
  return blocks
    .map((b) => (typeof b.text === "string" ? b.text.toLowerCase() : ""))
    .filter(Boolean);
}
