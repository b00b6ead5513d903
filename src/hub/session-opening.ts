// How a client comes to a session: a new one, or one loaded or resumed from the ledger. The
// client is attached, sent what it missed (replay, then live, stitched by sequence number), and
// the agent's session is restored where this process may run it.
import type { SessionRunner } from "./runner.js";
import type { LedgerPort } from "../engine/ports.js";
import type { SessionAccess } from "./access.js";
import type { Attachments, HubClient } from "./attachments.js";
import type { ClusterClaims } from "./cluster-claims.js";
import { catchUpNotes, Note } from "./frames.js";
import { afterSeqOf, agentOf } from "./meta.js";
import { checkSessionFolder, type FolderCheck } from "./session-folder.js";
import type { SessionChecks } from "./session-checks.js";
import type { Logger } from "../shared/logger.js";
import { lastSeq } from "./turn-records.js";
import type { AgentRules } from "./agent-rules.js";
import type { SessionProcesses } from "./session-processes.js";

type Params = Record<string, unknown>;

/** The hub's parts opening a session goes through. */
export interface SessionOpeningDeps {
  ledger: LedgerPort;
  defaultAgent: string;
  agentRules?: AgentRules;
  runner?: SessionRunner;
  access: SessionAccess;
  attachments: Attachments;
  checks: SessionChecks;
  processes: SessionProcesses;
  claims: ClusterClaims;
  logger: Logger;
  checkFolders: FolderCheck;
  /** Records as dropped the prompts a stopped hub left queued (prompt-queue.ts). */
  dropLeftOver?: (sessionId: string) => Promise<void>;
}

/** What a client is told when the ledger kept only the later part of a session. */
const TRIMMED_NOTE =
  "[acphub] older history of this session was trimmed (ledger caps); the replay starts later\n";

export class SessionOpening {
  constructor(private readonly deps: SessionOpeningDeps) {}

  /**
   * Sends the client what it missed after `afterSeq`, then what arrived live meanwhile: it is
   * attached at once with live updates held back, read from the ledger, and released.
   */
  async catchUp(
    client: HubClient,
    sessionId: string,
    afterSeq: number,
  ): Promise<void> {
    const { attachments } = this.deps;
    attachments.attach(sessionId, client, afterSeq, true);
    try {
      const stored = await this.deps.ledger.read(sessionId, { afterSeq });
      const damaged = (seq: number) =>
        this.deps.logger.warn(
          { sessionId, seq },
          "ledger: damaged event row skipped",
        );
      // Written in one go: the client's socket takes them in one system call (coalesced).
      for (const note of catchUpNotes(sessionId, stored, afterSeq, damaged))
        client.notify(note, true);
      attachments.release(sessionId, client, lastSeq(stored, afterSeq));
    } catch (error) {
      attachments.detach(client, sessionId);
      throw error;
    }
  }

  // session/new: the creator owns the session, holds its lease and is attached from the start;
  // it runs in the creator's own agent process (issue 36), planned before anything starts.
  async newSession(client: HubClient, params: Params): Promise<Params> {
    const { access, runner, processes } = this.deps;
    access.mayCreate(client.user);
    checkSessionFolder(params["cwd"]);
    const { cwd, additionalDirectories } = params;
    await this.deps.checkFolders({ cwd, additionalDirectories }, client.user);
    const agent = agentOf(params["_meta"]) ?? this.deps.defaultAgent;
    this.deps.agentRules?.mayStart(client.user, agent);
    this.deps.agentRules?.mayGiveServers(client.user, params);
    const run = await processes.planFor(client.user?.name, agent);
    const result = await this.deps.processes.using(run, async (gateway) => {
      const result = await gateway.newSession(params);
      const id = String(result["sessionId"]);
      processes.remember(id, run);
      await access.own(client.user, id);
      await runner?.claim(id, false);
      await this.catchUp(client, id, 0);
      runner?.attached(id);
      return result;
    });
    return this.deps.processes.withRunsAs(String(result["sessionId"]), result);
  }

  // session/load: the whole history replayed (with a note when the ledger trimmed its start).
  async loadSession(client: HubClient, params: Params): Promise<Params> {
    this.deps.agentRules?.mayGiveServers(client.user, params);
    const record = await this.openable(client, params);
    const run = await this.deps.processes.openRun(record);
    const result = await this.deps.processes.using(run, async (gateway) => {
      this.deps.processes.remember(record.id, run);
      await this.deps.dropLeftOver?.(record.id);
      if (record.incomplete)
        client.notify(
          new Note("session/update", {
            sessionId: record.id,
            update: {
              sessionUpdate: "agent_message_chunk",
              content: { type: "text", text: TRIMMED_NOTE },
            },
          }),
        );
      await this.catchUp(client, record.id, 0);
      return this.deps.claims.restoreIfHeld(record.id, gateway);
    });
    return this.deps.processes.withRunsAs(record.id, result);
  }

  // session/resume: only what came after the client's cursor, if it sent one.
  async resumeSession(client: HubClient, params: Params): Promise<Params> {
    this.deps.agentRules?.mayGiveServers(client.user, params);
    const record = await this.openable(client, params);
    const run = await this.deps.processes.openRun(record);
    const result = await this.deps.processes.using(run, async (gateway) => {
      this.deps.processes.remember(record.id, run);
      await this.deps.dropLeftOver?.(record.id);
      const after = afterSeqOf(params["_meta"]);
      // Without a cursor the client has seen nothing: what is relayed from now on is new to it.
      if (after !== undefined) await this.catchUp(client, record.id, after);
      else this.deps.attachments.attach(record.id, client);
      return this.deps.claims.restoreIfHeld(record.id, gateway);
    });
    return this.deps.processes.withRunsAs(record.id, result);
  }

  // A stored session the client may open: visible to its user, and its folders (the stored
  // ones: the agent is restored there, whatever cwd the client sends) inside the user's roots
  // — or, for a session shared with them, at least never a folder that is never a root.
  private async openable(client: HubClient, params: Params) {
    const record = await this.deps.checks.record(params["sessionId"], client);
    const standing = await this.deps.checks.markStanding(client, record.id);
    const request = record.request as { additionalDirectories?: unknown };
    const own = standing === "admin" || standing === "owner";
    await this.deps.checkFolders(
      { cwd: record.cwd, additionalDirectories: request.additionalDirectories },
      own ? client.user : null,
    );
    return record;
  }
}
