// The open ACP connections of each user, so that revoking a user (removed, or a new token)
// closes what they hold open at once (issue 22).
import type { AgentConnection } from "@agentclientprotocol/sdk";
import { HubError } from "../shared/errors.js";

export class ConnectionsByUser {
  private readonly open = new Map<string, Set<AgentConnection>>();

  add(user: string | undefined, c: AgentConnection): void {
    if (user === undefined) return;
    let set = this.open.get(user);
    if (!set) this.open.set(user, (set = new Set()));
    set.add(c);
  }

  remove(user: string | undefined, c: AgentConnection): void {
    if (user === undefined) return;
    const set = this.open.get(user);
    set?.delete(c);
    if (set?.size === 0) this.open.delete(user);
  }

  /** The connections a user holds open now. */
  count(user: string): number {
    return this.open.get(user)?.size ?? 0;
  }

  // Closes every connection of a user; the client is told why.
  close(user: string): number {
    const set = this.open.get(user);
    this.open.delete(user);
    for (const c of set ?? [])
      c.close(
        new HubError(
          "AUTH_REQUIRED",
          `user ${user} was removed or given a new token`,
        ),
      );
    return set?.size ?? 0;
  }
}
