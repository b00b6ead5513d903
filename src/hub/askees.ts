// One permission question asked of several clients of this node at once, where an answer counts
// only once it claims the question (in a cluster: in the ledger, against every node's answers;
// issue 37). The first claim wins; the clients still asked are cancelled ($/cancel_request); a
// client whose answer comes too late is told, in a notice only it sees, who answered first.
import { BUILTIN_ADMIN } from "../contracts/users.js";
import { noticeParams } from "../engine/notices.js";
import type { HubClient } from "./attachments.js";
import { Note } from "./frames.js";

type Params = Record<string, unknown>;

/** Who answered a question first: a user, on a node in a cluster; none: it was withdrawn. */
export interface Answerer {
  user?: string;
  node?: string;
}

/** The answer that claimed the question here. */
export interface Won {
  client: HubClient;
  answer: unknown;
}

interface Asked {
  client: HubClient;
  controller: AbortController;
  pending: boolean;
}

export class Askees {
  private readonly asked = new Map<string, Asked>();
  private ended = false;
  private first: Answerer = {};
  /** The first error of a client that is still connected (it refused to answer). */
  error: unknown;
  readonly won: Promise<Won>;
  private win!: (won: Won) => void;

  constructor(
    private readonly params: Params,
    /** Claims the question for an answer: undefined when it was the first, else who was. */
    private readonly claim: (
      client: HubClient,
      answer: unknown,
    ) => Promise<Answerer | undefined>,
    /** Called when a client stops being asked (answered, refused, left). */
    private readonly changed: () => void = () => undefined,
    /** This node, in a cluster (a late answer is told where the first was given). */
    private readonly node?: string,
  ) {
    this.won = new Promise((resolve) => (this.win = resolve));
  }

  // Asks one more client (once per client, while the question is open).
  add(client: HubClient): void {
    if (this.ended || this.asked.has(client.id) || client.closed) return;
    const entry: Asked = {
      client,
      controller: new AbortController(),
      pending: true,
    };
    this.asked.set(client.id, entry);
    void Promise.resolve()
      .then(() =>
        client.request(
          "session/request_permission",
          this.params,
          entry.controller.signal,
        ),
      )
      .then(
        (answer) => this.answered(client, answer),
        (error: unknown) => {
          if (!client.closed && !entry.controller.signal.aborted)
            this.error ??= error;
        },
      )
      .finally(() => {
        entry.pending = false;
        this.changed();
      });
  }

  /** Clients asked that have not answered yet (nor refused, nor left). */
  get pending(): number {
    let n = 0;
    for (const a of this.asked.values()) if (a.pending && !a.client.closed) n++;
    return n;
  }

  // An answer: the winner when it claims the question first, else told it came too late.
  private async answered(client: HubClient, answer: unknown): Promise<void> {
    if (this.ended) return tellLate(client, this.params, answer, this.first);
    const first = await this.claim(client, answer).catch((): Answerer => ({}));
    if (first !== undefined) {
      this.settle(first);
      return tellLate(client, this.params, answer, first);
    }
    this.settle({ user: client.user?.name ?? BUILTIN_ADMIN, node: this.node });
    this.win({ client, answer });
  }

  /** The question ended (answered, here or elsewhere, or withdrawn): the others are cancelled. */
  settle(first: Answerer): void {
    if (this.ended) return;
    this.ended = true;
    this.first = first;
    for (const a of this.asked.values()) a.controller.abort();
  }
}

/** Whether an answer chose an option (a cancelled outcome is the reply to a cancel). */
function chose(answer: unknown): boolean {
  const outcome = (answer as { outcome?: { outcome?: unknown } } | null)
    ?.outcome;
  return outcome?.outcome === "selected";
}

/**
 * Tells a client whose answer came after the question was claimed (or withdrawn) that its answer
 * was not used, and who was first: a notice to it alone (it is the reply to its answer, which
 * JSON-RPC gives no other way), with `_meta.acphub.answeredBy` for programs.
 */
export function tellLate(
  client: HubClient,
  params: Params,
  answer: unknown,
  first: Answerer,
): void {
  if (!chose(answer) || client.closed) return;
  const title = (params["toolCall"] as { title?: unknown } | undefined)?.title;
  const what = typeof title === "string" ? ` to "${title}"` : "";
  const text = first.user
    ? `already answered by ${first.user}${first.node ? ` on ${first.node}` : ""}: your answer${what} was not used`
    : `the question${what} was withdrawn (its turn ended): your answer was not used`;
  const shown = noticeParams({ severity: "warning", title: text }, false);
  const meta = shown["_meta"] as { acphub: Params };
  if (first.user) meta.acphub["answeredBy"] = first.user;
  client.notify(
    new Note("session/update", { sessionId: params["sessionId"], ...shown }),
  );
}
