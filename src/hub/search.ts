// `_acphub/sessions/search` for the web page's sidebar: the sessions whose title or text (the
// prompts and the agent's replies, as the ledger recorded them) contain the words asked for.
// One ledger query (LedgerPort.searchSessions), bounded: the newest SEARCH_SESSIONS sessions
// the user may see, the first SEARCH_MATCHES matches.
import type { HubUser } from "../contracts/users.js";
import type { LedgerPort } from "../engine/ports.js";
import { HubError } from "../shared/errors.js";
import { HUB_METHOD, type SearchAnswer } from "../shared/hub-extension.js";
import type { SessionAccess } from "./access.js";

const SESSIONS_SEARCH = HUB_METHOD.sessionsSearch;
/** Sessions looked at, newest first. */
const SEARCH_SESSIONS = 200;
/** Matches returned at most. */
const SEARCH_MATCHES = 100;

/** The session ids whose title or text holds `query` (case-insensitive), newest first. */
export async function searchSessions(
  hub: { ledger: LedgerPort; access: SessionAccess },
  user: HubUser | undefined,
  params: Record<string, unknown>,
): Promise<SearchAnswer> {
  const query = params["query"];
  if (typeof query !== "string" || !query.trim())
    throw new HubError("USAGE", `${SESSIONS_SEARCH} needs a non-empty query`);
  const sharedWith = hub.access.sharedWith(user);
  const sessionIds = await hub.ledger.searchSessions({
    text: query.trim(),
    ...(sharedWith === undefined ? {} : { sharedWith }),
    scan: SEARCH_SESSIONS,
    limit: SEARCH_MATCHES,
  });
  return { sessionIds };
}
