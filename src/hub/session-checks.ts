// The checks a client's request about a session passes first: the session exists and its user
// may see it (else exactly "no session"), may drive it, has it open on this connection; and
// watch-only marking.
import { HubError } from "../shared/errors.js";
import type { LedgerPort, SessionRecord } from "../engine/ports.js";
import {
  mayDrive,
  noSession,
  type SessionAccess,
  type Standing,
} from "./access.js";
import type { Attachments, HubClient } from "./attachments.js";

export class SessionChecks {
  constructor(
    private readonly ledger: LedgerPort,
    private readonly access: SessionAccess,
    private readonly attachments: Attachments,
  ) {}

  // A session by id; with a client, only one its user may see (else exactly "no session").
  async record(id: unknown, client?: HubClient): Promise<SessionRecord> {
    const record =
      typeof id === "string" ? await this.ledger.getSession(id) : undefined;
    if (!record) throw noSession(id);
    if (client) await this.access.mustSee(client.user, record.id);
    return record;
  }

  // Refuses a client whose user may only watch the session (or not see it at all).
  async mustDrive(client: HubClient, sessionId: unknown): Promise<void> {
    const record = await this.record(sessionId, client);
    await this.access.mustDrive(client.user, record.id);
  }

  // A session this connection has opened or loaded; others must be loaded first.
  async attachedRecord(client: HubClient, id: unknown): Promise<SessionRecord> {
    return this.mustBeAttached(client, await this.record(id, client));
  }

  // A session the client may drive and has open: the session and its grants read once each.
  async drivenRecord(client: HubClient, id: unknown): Promise<SessionRecord> {
    const record =
      typeof id === "string" ? await this.ledger.getSession(id) : undefined;
    if (!record) throw noSession(id);
    mayDrive(await this.access.mustSee(client.user, record.id), record.id);
    return this.mustBeAttached(client, record);
  }

  private mustBeAttached(client: HubClient, record: SessionRecord) {
    if (!client.routed && !this.attachments.isAttached(record.id, client))
      throw new HubError(
        "SESSION_NOT_FOUND",
        `session ${record.id} is not open on this connection: session/load or session/resume it first`,
      );
    return record;
  }

  // Notes a client that may only watch a session: permission questions never go to it.
  async markStanding(
    client: HubClient,
    sessionId: string,
  ): Promise<Standing | undefined> {
    const standing = await this.access.standing(client.user, sessionId);
    this.attachments.setWatchOnly(sessionId, client, standing === "viewer");
    return standing;
  }
}
