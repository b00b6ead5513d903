// `_acphub/sessions/search` for the web page's sidebar: the sessions whose title or text (the
// prompts and the agent's replies, as the ledger recorded them) contain the words asked for.
// Bounded: the newest SEARCH_SESSIONS sessions, the first SEARCH_MATCHES matches.
import type { LedgerPort } from "../engine/ports.js";
import { HubError } from "../shared/errors.js";
import { HUB_METHOD, type SearchAnswer } from "../shared/hub-extension.js";

const SESSIONS_SEARCH = HUB_METHOD.sessionsSearch;
/** Sessions looked at, newest first. */
const SEARCH_SESSIONS = 200;
/** Matches returned at most. */
const SEARCH_MATCHES = 100;

/** The session ids whose title or text holds `query` (case-insensitive), newest first. */
export async function searchSessions(
  ledger: LedgerPort,
  params: Record<string, unknown>,
  /** The sessions the asking user may see (issue 22); the others are never read. */
  visible: "all" | ReadonlySet<string> = "all",
): Promise<SearchAnswer> {
  const query = params["query"];
  if (typeof query !== "string" || !query.trim())
    throw new HubError("USAGE", `${SESSIONS_SEARCH} needs a non-empty query`);
  const needle = query.trim().toLowerCase();
  const page = await ledger.listSessions({ limit: SEARCH_SESSIONS });
  const sessionIds: string[] = [];
  for (const s of page.sessions) {
    if (sessionIds.length >= SEARCH_MATCHES) break;
    if (visible !== "all" && !visible.has(s.id)) continue;
    if (
      s.title?.toLowerCase().includes(needle) ||
      (await textHolds(ledger, s.id, needle))
    )
      sessionIds.push(s.id);
  }
  return { sessionIds };
}

// Whether any prompt or message text recorded for a session holds the (lower-case) words. A
// message's chunks are joined first: until its turn is compacted (chunks merged into one
// event), a phrase can span two chunks.
async function textHolds(
  ledger: LedgerPort,
  sessionId: string,
  needle: string,
): Promise<boolean> {
  let run = "";
  let runKind: unknown;
  for (const event of await ledger.read(sessionId)) {
    if (event.kind !== "prompt" && event.kind !== "update") continue;
    const payload = JSON.parse(event.text) as Payload;
    const kind = event.kind === "prompt" ? null : payload.update?.sessionUpdate;
    if (kind !== runKind || kind === null) {
      if (run.includes(needle)) return true;
      [run, runKind] = ["", kind];
    }
    run += textsOf(payload).join("\n");
  }
  return run.includes(needle);
}

interface Payload {
  prompt?: { text?: unknown }[];
  update?: { sessionUpdate?: unknown; content?: { text?: unknown } };
}

// The text blocks of a prompt ({prompt: [blocks]}) or a message chunk ({update: {content}}).
function textsOf(payload: Payload): string[] {
  const blocks = payload.prompt ?? [payload.update?.content ?? {}];
  return blocks
    .map((b) => (typeof b.text === "string" ? b.text.toLowerCase() : ""))
    .filter(Boolean);
}
