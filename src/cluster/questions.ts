// Permission questions on every node of a cluster (issue 37). The node that runs a turn asks
// its question here (a row in the ledger and a NOTIFY, `ask`); every other node with clients
// attached to that session that may answer (drivers and owners, never viewers) asks them too;
// the first answer on any node claims the row (one UPDATE … WHERE answer IS NULL) and says so
// (NOTIFY): the asking node takes the answer to its agent, every node cancels what it still
// asked. A question that ends without an answer (its turn cancelled) is withdrawn everywhere;
// the questions of a node that died are swept by the others. Notifications lost with the
// LISTEN connection are made up for by the heartbeat's reads: the rows are the truth.
import { randomUUID } from "node:crypto";
import type { ClusterStore } from "../contracts/cluster-store.js";
import { noteAnswer } from "../hub/access.js";
import type {
  AskedQuestion,
  QuestionBoard,
  RemoteAnswer,
} from "../hub/ask-everywhere.js";
import { Askees, type Answerer } from "../hub/askees.js";
import type { HubClient } from "../hub/attachments.js";
import type { SessionHub } from "../hub/session-hub.js";
import { BUILTIN_ADMIN } from "../contracts/users.js";
import type { Logger } from "../shared/logger.js";

const CHANNEL = "acphub_questions";
/** Answered questions whose answerer is remembered, for answers that come after (a bound). */
const RECENT = 256;

type Params = Record<string, unknown>;

/** What nodes tell each other of questions (one NOTIFY each). */
interface Message {
  ask?: string;
  session?: string;
  answered?: string;
  by?: string;
  node?: string;
  withdrawn?: string[];
}

/** A question another node asked that the watch here shows: its session, and since when. */
interface Shown {
  sessionId: string;
  /** performance.now() when first shown here. */
  at: number;
}

/** A question another node asked, as asked of this node's clients. */
interface Offered {
  sessionId: string;
  askees: Askees;
}

export interface ClusterQuestionsOptions {
  store: ClusterStore;
  hub: () => SessionHub;
  nodeId: () => string;
  /** How long a hold on a question lasts, and how stale a node's questions are swept. */
  leaseMs: number;
  logger: Logger;
}

export class ClusterQuestions implements QuestionBoard {
  /** Questions asked here: how to hand over an answer another node claimed. */
  private readonly mine = new Map<string, (answer: RemoteAnswer) => void>();
  private readonly offered = new Map<string, Offered>();
  private readonly recent = new Map<string, Answerer>();
  /** Open questions of other nodes the watch here shows as waiting, with their sessions. */
  private readonly shown = new Map<string, Shown>();
  /** Sessions a client here attached to: their questions are offered here. */
  private readonly sessions = new Set<string>();
  private unlisten: (() => void) | undefined;

  constructor(private readonly o: ClusterQuestionsOptions) {}

  get nodeId(): string {
    return this.o.nodeId();
  }

  private get db() {
    return this.o.store.questions;
  }

  /** Listens; the questions this node asked before a restart are withdrawn. */
  async start(): Promise<void> {
    this.unlisten = await this.o.store.listen(
      CHANNEL,
      (payload) => this.heard(payload),
      () => void this.tick(),
    );
    this.withdrawn(await this.db.withdraw([], this.nodeId));
  }

  /** Leaving the cluster: this node's questions are withdrawn everywhere. */
  async stop(): Promise<void> {
    this.unlisten?.();
    const gone = await this.db.withdraw([], this.nodeId).catch(() => []);
    this.withdrawn(gone);
  }

  async ask(sessionId: string, params: Params): Promise<AskedQuestion> {
    const id = randomUUID();
    const node = this.nodeId;
    await this.db.ask({ id, sessionId, node, request: JSON.stringify(params) });
    const remote = new Promise<RemoteAnswer>((resolve) =>
      this.mine.set(id, resolve),
    );
    this.tell({ ask: id, session: sessionId });
    return {
      node,
      remote,
      claim: (user, answer) => this.claim(id, user, answer),
      heldElsewhere: () => this.db.heldFor(id),
      // Its row goes; unanswered, it is withdrawn everywhere (an answer was told already: a
      // second message could overtake it and name nobody).
      close: () => {
        this.mine.delete(id);
        void this.db
          .withdraw([id])
          .then((ids) => {
            if (!this.recent.has(id)) this.withdrawn(ids);
          })
          .catch(() => undefined);
      },
    };
  }

  // Claims a question for an answer given on this node; the winner tells every node.
  private async claim(
    id: string,
    user: string,
    answer: unknown,
  ): Promise<Answerer | undefined> {
    const node = this.nodeId;
    const first = await this.db.claim({
      id,
      user,
      node,
      answer: JSON.stringify(answer),
    });
    if (first === undefined) {
      this.remember(id, { user, node });
      this.tell({ answered: id, by: user, node });
      return undefined;
    }
    // Taken by its asker already: the name was heard with its answer.
    return first.user ? first : (this.recent.get(id) ?? first);
  }

  /** A client attached here: the session's open questions are asked of it too. */
  attached(sessionId: string): void {
    this.sessions.add(sessionId);
    void this.sync([sessionId]);
  }

  /**
   * A turn another node ran ended (its end read from the ledger, with no prompt after it):
   * every question of it is over, though the asking node's word of it (a NOTIFY, the row's
   * deletion) may come later. Those shown since the read began (`before`, performance.now())
   * may be the next turn's, and stay; a read that holds the next turn's prompt too ends none
   * (the feed); the heartbeat's read of the open rows ends the rest.
   */
  turnEnded(sessionId: string, before: number): void {
    for (const [id, shown] of this.shown)
      if (shown.sessionId === sessionId && shown.at < before)
        this.end(id, this.recent.get(id) ?? {});
  }

  /**
   * The heartbeat's reads: questions asked and answers given meanwhile (a notification may have
   * been lost), holds renewed, the questions of dead nodes swept.
   */
  async tick(): Promise<void> {
    try {
      this.withdrawn(await this.db.sweep(this.o.leaseMs));
      if (this.mine.size > 0)
        for (const id of await this.db.answered(this.nodeId))
          void this.take(id);
      await this.sync([...this.sessions]);
    } catch (error) {
      this.o.logger.warn({ err: error }, "cluster: questions not read");
    }
  }

  // Offers the open questions of these sessions to the clients here that may answer; every
  // session with a client here shows them as waiting (issue 38); ends those gone.
  private async sync(sessionIds: string[]): Promise<void> {
    const ids = sessionIds.filter((id) => this.watched(id));
    for (const id of sessionIds)
      if (!ids.includes(id)) {
        this.sessions.delete(id);
        for (const [q, shown] of this.shown)
          if (shown.sessionId === id) this.end(q, {});
      }
    if (ids.length === 0) return;
    const open = await this.db.open(ids, this.nodeId).catch(() => undefined);
    if (!open) return;
    const still = new Set(open.map((q) => q.id));
    for (const [id, shown] of this.shown)
      if (ids.includes(shown.sessionId) && !still.has(id)) this.end(id, {});
    for (const q of open) this.offer(q.id, q.sessionId, q.request);
    const held = [...this.offered]
      .filter(([, q]) => q.askees.pending > 0)
      .map(([id]) => id);
    if (held.length > 0) await this.db.hold(held, this.o.leaseMs);
  }

  // Whether a client here is attached to the session (one that may answer or not).
  private watched(sessionId: string): boolean {
    return this.o.hub().attachments.followed(sessionId);
  }

  // The clients here that may answer a session's questions.
  private eligible(sessionId: string): HubClient[] {
    const { attachments } = this.o.hub();
    return attachments
      .attached(sessionId)
      .map((a) => a.client)
      .filter((c) => !c.closed && attachments.mayAnswer(sessionId, c));
  }

  // Asks the clients here (again: those not asked yet) a question another node asked.
  private offer(id: string, sessionId: string, request: string): void {
    if (!this.shown.has(id)) {
      this.shown.set(id, { sessionId, at: performance.now() });
      this.o.hub().watch.asked(sessionId, 1);
    }
    if (this.eligible(sessionId).length === 0) return;
    let q = this.offered.get(id);
    if (!q) {
      const params = JSON.parse(request) as Params;
      const askees = new Askees(
        params,
        (client, answer) =>
          this.claim(id, client.user?.name ?? BUILTIN_ADMIN, answer),
        undefined,
        this.nodeId,
      );
      q = { sessionId, askees };
      this.offered.set(id, q);
      void askees.won.then(({ client, answer }) => {
        this.offered.delete(id);
        const hub = this.o.hub();
        if (this.shown.delete(id)) hub.watch.asked(sessionId, -1);
        void noteAnswer(hub.access, client.user, params, answer, this.nodeId);
      });
    }
    for (const c of this.eligible(sessionId)) q.askees.add(c);
  }

  // A question ended: what this node still asks of it is cancelled.
  private end(id: string, first: Answerer): void {
    this.offered.get(id)?.askees.settle(first);
    this.offered.delete(id);
    const shown = this.shown.get(id);
    if (shown && this.shown.delete(id))
      this.o.hub().watch.asked(shown.sessionId, -1);
  }

  // What another node (or this one) said of a question.
  private heard(payload: string): void {
    let m: Message;
    try {
      m = JSON.parse(payload) as Message;
    } catch {
      return this.o.logger.warn({ payload }, "cluster: unreadable question");
    }
    if (m.ask && m.session && this.sessions.has(m.session))
      void this.sync([m.session]);
    if (m.answered) {
      const first = { user: m.by, node: m.node };
      this.remember(m.answered, first);
      this.end(m.answered, first);
      if (m.node !== this.nodeId) void this.take(m.answered);
    }
    for (const id of m.withdrawn ?? []) this.end(id, this.recent.get(id) ?? {});
  }

  // Hands the agent the answer another node claimed for a question asked here.
  private async take(id: string): Promise<void> {
    const give = this.mine.get(id);
    if (!give) return;
    const taken = await this.db.take(id).catch(() => undefined);
    if (!taken || !this.mine.delete(id)) return;
    give({
      answer: JSON.parse(taken.answer) as unknown,
      user: taken.user,
      node: taken.node,
    });
  }

  // Questions deleted here: ended on every node (told in parts that fit a NOTIFY's 8000 bytes).
  private withdrawn(ids: string[]): void {
    for (const id of ids) this.end(id, this.recent.get(id) ?? {});
    for (let i = 0; i < ids.length; i += 100)
      this.tell({ withdrawn: ids.slice(i, i + 100) });
  }

  private remember(id: string, first: Answerer): void {
    this.recent.set(id, first);
    if (this.recent.size > RECENT)
      this.recent.delete(this.recent.keys().next().value!);
  }

  private tell(message: Message): void {
    void this.o.store
      .notify(CHANNEL, JSON.stringify(message))
      .catch((error: unknown) =>
        this.o.logger.warn({ err: error }, "cluster: question not told"),
      );
  }
}
