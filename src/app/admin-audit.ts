// The audit log a page at a time for `_acphub/audit` (issue 38): the same filters as
// `acphub audit` (user, session, action, a time range), checked, newest first, with `more` when
// older entries match too; and a user's "last seen", their newest entry.
import type { AuditFilter, UserStore } from "../contracts/users.js";
import type { Params } from "../protocol/raw.js";
import { HubError } from "../shared/errors.js";
import { HUB_METHOD } from "../shared/hub-extension.js";
import type { AuditPage } from "../shared/admin-answers.js";

/** Entries per page unless the page asks for fewer (at most this many). */
export const AUDIT_PAGE_MAX = 200;

const bad = (what: string) =>
  new HubError("USAGE", `${HUB_METHOD.audit}: ${what}`);

// A text filter: absent, or a non-empty string.
function text(params: Params, key: string): string | undefined {
  const v = params[key];
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string") throw bad(`${key} must be a string`);
  return v;
}

// A moment: ms since the epoch or an ISO date.
function moment(params: Params, key: string): number | undefined {
  const v = params[key];
  if (v === undefined || v === null || v === "") return undefined;
  const at =
    typeof v === "number" ? v : typeof v === "string" ? Date.parse(v) : NaN;
  if (!Number.isFinite(at))
    throw bad(
      `${key} ${JSON.stringify(v)} is not a time (ms since the epoch or an ISO date)`,
    );
  return at;
}

// A whole number within bounds, or the default.
function whole(
  params: Params,
  key: string,
  min: number,
  max: number,
  dflt: number,
): number {
  const v = params[key];
  if (v === undefined) return dflt;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min || v > max)
    throw bad(`${key} must be a whole number from ${min} to ${max}`);
  return v;
}

// One page of the log, newest first, after the filter's own check (`check`: audit-log.ts).
export async function auditPage(
  store: UserStore,
  params: Params,
  check: (f: AuditFilter) => AuditFilter,
): Promise<AuditPage> {
  const limit = whole(params, "limit", 1, AUDIT_PAGE_MAX, 50);
  const filter = check({
    user: text(params, "user"),
    sessionId: text(params, "sessionId"),
    action: text(params, "action"),
    since: moment(params, "since"),
    until: moment(params, "until"),
    offset: whole(params, "offset", 0, Number.MAX_SAFE_INTEGER, 0),
    limit: limit + 1,
    newestFirst: true,
  });
  const rows = await store.auditLog(filter);
  return { entries: rows.slice(0, limit), more: rows.length > limit };
}

// When a user last did anything the log keeps (a login, a prompt…): their newest entry.
export async function lastSeenOf(
  store: UserStore,
  name: string,
): Promise<number | undefined> {
  const [newest] = await store.auditLog({
    user: name,
    newestFirst: true,
    limit: 1,
  });
  return newest?.at;
}
