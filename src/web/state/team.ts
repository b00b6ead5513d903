// Who the page is logged in as (`_acphub/whoami`) and what that user may do in the open
// session: its grants (`_acphub/session/grants`), read as the hub's rules read them (an admin
// everything; a member as owner, driver or viewer; a viewer-role user only watches), shared
// and unshared with `_acphub/session/share` / `unshare` by the owner or an admin.
import type { Params } from "../acp/hub-client.js";
import { HUB_METHOD } from "../../shared/hub-extension.js";

export interface Me {
  name: string;
  role: "admin" | "member" | "viewer";
}

export type GrantRole = "owner" | "driver" | "viewer";

export interface Grant {
  user: string;
  role: GrantRole;
}

/** What a user may do in one session (the hub refuses the rest anyway). */
export type Standing = "admin" | GrantRole;

/** The store's side the team needs: requests to the hub and a re-render. */
export interface TeamHost {
  request<T = Params>(method: string, params: Params): Promise<T>;
  changed(): void;
}

/** The grants the hub answered, or "none" on a hub that keeps no users. */
type Grants = Grant[] | "none";

export class Team {
  me?: Me;
  /** Grants by session id, as last read. */
  private readonly grants = new Map<string, Grants>();
  private asking?: Promise<void>;

  constructor(private readonly host: TeamHost) {}

  // Asks the hub who this page is, once per connection that answers.
  whoami(): Promise<void> {
    this.asking ??= this.host
      .request<Me>(HUB_METHOD.whoami, {})
      .then((me) => {
        this.me = me;
        this.host.changed();
      })
      .finally(() => (this.asking = undefined));
    return this.asking;
  }

  // Reads (again) who has access to a session; a hub without users has no grants to read.
  async load(sessionId: string): Promise<void> {
    try {
      const answer = await this.host.request<{ grants: Params[] }>(
        HUB_METHOD.sessionGrants,
        { sessionId },
      );
      this.grants.set(sessionId, answer.grants.map(grantOf));
    } catch (error) {
      // -32601: a hub that keeps no users.
      if ((error as { code?: unknown }).code !== -32601) throw error;
      this.grants.set(sessionId, "none");
    }
    this.host.changed();
  }

  /** The session's grants (owner first), undefined until read or on a hub without users. */
  grantsOf(sessionId: string): Grant[] | undefined {
    const g = this.grants.get(sessionId);
    return g === "none" ? undefined : g;
  }

  /** This page's standing in a session; undefined while not known yet. */
  standing(sessionId: string): Standing | undefined {
    const me = this.me;
    if (!me) return undefined;
    if (me.role === "admin") return "admin";
    const g = this.grants.get(sessionId);
    if (g === undefined) return me.role === "viewer" ? "viewer" : undefined;
    if (g === "none") return "admin";
    const role = g.find((x) => x.user === me.name)?.role;
    return me.role === "viewer" || role === undefined ? "viewer" : role;
  }

  /** True when this page may only watch the session (no prompt, answer or setting). */
  readOnly(sessionId: string): boolean {
    return this.standing(sessionId) === "viewer";
  }

  /** True when this page may share the session (its owner or an admin, on a hub with users). */
  mayShare(sessionId: string): boolean {
    const s = this.standing(sessionId);
    return (s === "owner" || s === "admin") && !!this.grantsOf(sessionId);
  }

  // Shares the session with a user (viewer or driver), then reads its grants again.
  async share(sessionId: string, user: string, role: GrantRole): Promise<void> {
    await this.host.request(HUB_METHOD.sessionShare, {
      sessionId,
      user,
      role,
    });
    await this.load(sessionId);
  }

  // Ends a user's share of the session, then reads its grants again.
  async unshare(sessionId: string, user: string): Promise<void> {
    await this.host.request(HUB_METHOD.sessionUnshare, { sessionId, user });
    await this.load(sessionId);
  }
}

const ORDER: Record<GrantRole, number> = { owner: 0, driver: 1, viewer: 2 };

function grantOf(g: Params): Grant {
  return { user: String(g["user"]), role: g["role"] as GrantRole };
}

/** Owner first, then drivers, then viewers, each by name. */
export function sortGrants(grants: Grant[]): Grant[] {
  return [...grants].sort(
    (a, b) => ORDER[a.role] - ORDER[b.role] || a.user.localeCompare(b.user),
  );
}
