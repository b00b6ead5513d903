// Who may see and drive which hub session (issue 22): an admin (or a hub without users) every
// session; a member their own (they created it) and those shared with them, as driver or
// viewer; a viewer-role user only watches. A session a user may not see is answered exactly
// like one that does not exist.
import {
  BUILTIN_ADMIN,
  rememberedFor,
  type AuditPort,
  type HubUser,
  type ShareRole,
  type UserStore,
} from "../contracts/users.js";
import { HubError } from "../shared/errors.js";
import { ownMetaOf } from "../shared/hub-extension.js";

/** What the rules read and write of the ledger's users store. */
export type AccessStore = Pick<
  UserStore,
  "grant" | "revoke" | "grantsOf" | "getUser"
>;

/** A user's standing in one session: everything, or their grant. */
export type Standing = "admin" | ShareRole;

// The error for a session that does not exist, or that this user may not see (same text).
export function noSession(id: unknown): HubError {
  return new HubError("SESSION_NOT_FOUND", `no session ${JSON.stringify(id)}`);
}

// Throws unless a standing already read lets its user drive the session.
export function mayDrive(standing: Standing, sessionId: string): void {
  if (standing === "viewer")
    throw new HubError(
      "PERMISSION_DENIED",
      `you may only watch session ${sessionId} (viewer): prompts, cancels, settings and permission answers are refused`,
    );
}

export class SessionAccess {
  /** Grants seen lately (session → user → role), for notifications that cannot wait. */
  private readonly known = new Map<string, Map<string, ShareRole>>();

  constructor(
    private readonly store?: AccessStore,
    /** The audit log's one writer (app/), given by serve; none: nothing is audited. */
    readonly audit?: AuditPort,
  ) {}

  /** True when the rules apply (a user that is not an admin, on a hub that keeps users). */
  restricted(user: HubUser | undefined): user is HubUser {
    return user !== undefined && user.role !== "admin" && !!this.store;
  }

  // A user's standing in a session, read from the ledger (so other processes' shares count).
  async standing(
    user: HubUser | undefined,
    sessionId: string,
  ): Promise<Standing | undefined> {
    if (!this.restricted(user)) return "admin";
    const grants = await this.store!.grantsOf(sessionId);
    this.known.set(sessionId, new Map(grants.map((g) => [g.user, g.role])));
    const role = grants.find((g) => g.user === user.name)?.role;
    // A viewer-role user watches even the sessions shared with them to drive.
    return role && user.role === "viewer" ? "viewer" : role;
  }

  // Throws "no session" unless the user may see it.
  async mustSee(
    user: HubUser | undefined,
    sessionId: string,
  ): Promise<Standing> {
    const s = await this.standing(user, sessionId);
    if (!s) throw noSession(sessionId);
    return s;
  }

  // Throws unless the user may prompt, cancel, change settings and answer in the session.
  async mustDrive(user: HubUser | undefined, sessionId: string): Promise<void> {
    mayDrive(await this.mustSee(user, sessionId), sessionId);
  }

  // Throws unless the user created the session (or is an admin): deleting it.
  async mustOwn(user: HubUser | undefined, sessionId: string): Promise<void> {
    const s = await this.mustSee(user, sessionId);
    if (s !== "admin" && s !== "owner")
      throw new HubError(
        "PERMISSION_DENIED",
        `only the owner of session ${sessionId} (or an admin) may do that`,
      );
  }

  // Refuses a new session to a viewer-role user.
  mayCreate(user: HubUser | undefined): void {
    if (user?.role === "viewer")
      throw new HubError(
        "PERMISSION_DENIED",
        "a viewer may list, load and watch sessions, not create them",
      );
  }

  // Records the creator of a new session as its owner.
  async own(user: HubUser | undefined, sessionId: string): Promise<void> {
    if (!user || !this.store) return;
    await this.store.grant({ sessionId, user: user.name, role: "owner" });
    this.remember(sessionId, user.name, "owner");
  }

  /** The user who owns a session: its creator's grant, else the serve token's holder. */
  async ownerOf(sessionId: string): Promise<string> {
    const grants = (await this.store?.grantsOf(sessionId)) ?? [];
    return grants.find((g) => g.role === "owner")?.user ?? BUILTIN_ADMIN;
  }

  /** Whose grants bound what a user sees in the ledger's lists: theirs, or none (all). */
  sharedWith(user: HubUser | undefined): string | undefined {
    return this.restricted(user) ? user.name : undefined;
  }

  /** From what was seen lately: may this user be told about this session (no ledger read)? */
  mayTell(user: HubUser | undefined, sessionId: string): boolean {
    if (!this.restricted(user)) return true;
    return this.known.get(sessionId)?.has(user.name) === true;
  }

  /** Whether the session's grants were seen lately (mayTell can answer for every user). */
  knows(sessionId: string): boolean {
    return this.known.has(sessionId);
  }

  remember(sessionId: string, user: string, role: ShareRole | undefined): void {
    let map = this.known.get(sessionId);
    if (!map) this.known.set(sessionId, (map = new Map()));
    if (role) map.set(user, role);
    else map.delete(user);
  }

  // Writes what a user did to the audit log (a failed write is not the user's problem).
  note(
    user: HubUser | undefined,
    action: string,
    sessionId: string | null,
    detail: Record<string, unknown> | null = null,
  ): void {
    void this.audit
      ?.record(
        { user: user?.name ?? BUILTIN_ADMIN, via: "hub" },
        action,
        sessionId,
        detail ?? undefined,
      )
      .catch(() => undefined);
  }

  get users(): AccessStore | undefined {
    return this.store;
  }
}

// What the audit log keeps of a permission answer: the tool call, and the option chosen.
export function permissionDetail(
  request: Record<string, unknown>,
  answer: unknown,
): Record<string, unknown> {
  const toolCall = request["toolCall"] as
    { toolCallId?: unknown; title?: unknown } | undefined;
  const outcome = (answer as { outcome?: Record<string, unknown> } | undefined)
    ?.outcome;
  const chosen = (
    request["options"] as Record<string, unknown>[] | undefined
  )?.find((o) => o["optionId"] === outcome?.["optionId"]);
  return {
    toolCallId: toolCall?.toolCallId ?? null,
    title: toolCall?.title ?? null,
    outcome: outcome?.["outcome"] ?? null,
    optionId: outcome?.["optionId"] ?? null,
    kind: chosen?.["kind"] ?? null,
  };
}

// An answer the client's own policy gave (`acphub run --hub` refusing by its mode, say), as the
// client marked it: the audit says the policy answered, not the connection's user.
function policyOf(answer: unknown): Record<string, unknown> {
  const own = ownMetaOf((answer as { _meta?: unknown } | null)?._meta);
  if (own.decidedBy !== "policy") return {};
  return {
    by: "policy",
    ...(typeof own.reason === "string" ? { reason: own.reason } : {}),
  };
}

// The audit entry of a permission answer. An "always" answer says whether it was remembered:
// only for the answering user, and only in a session they own (issue 34). In a cluster, `node`
// says on which node it was given (issue 37).
export async function noteAnswer(
  access: SessionAccess,
  user: HubUser | undefined,
  request: Record<string, unknown>,
  answer: unknown,
  node?: string,
): Promise<void> {
  const sessionId = String(request["sessionId"]);
  const detail = { ...permissionDetail(request, answer), ...policyOf(answer) };
  if (node) detail["node"] = node;
  if (detail["kind"] === "allow_always" || detail["kind"] === "reject_always") {
    const by = user?.name ?? BUILTIN_ADMIN;
    const owner = await access.ownerOf(sessionId).catch(() => undefined);
    const kept = owner !== undefined && rememberedFor(by, owner) !== undefined;
    detail["remembered"] = kept
      ? `for ${by}'s sessions`
      : `no: ${by} answered in a session of ${owner ?? "another user"}; it holds for this request only`;
  }
  access.note(user, "permission.answer", sessionId, detail);
}
