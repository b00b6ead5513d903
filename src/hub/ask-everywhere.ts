// A permission question of a turn run here, in a cluster (issue 37): published to every node
// (the `QuestionBoard` port, which cluster/ implements over the ledger), asked at once of every
// client here that may answer it — and of those that attach while it is open — and ended by the
// first answer that claims it, here or on another node. With nobody left to ask anywhere for
// the reconnect grace, the policy's refusal, as on one process.
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { BUILTIN_ADMIN } from "../contracts/users.js";
import { outcomeFor } from "../protocol/permission-options.js";
import type { Attachments, HubClient } from "./attachments.js";
import { Askees, type Answerer, type Won } from "./askees.js";

type Params = Record<string, unknown>;

/** An answer claimed on another node, as the asking node takes it. */
export interface RemoteAnswer {
  answer: unknown;
  user: string;
  node: string;
}

/** A question asked here and published to the cluster's other nodes. */
export interface AskedQuestion {
  /** The node that asked it (this one). */
  readonly node: string;
  /** Resolves with the answer another node claimed; never rejects. */
  readonly remote: Promise<RemoteAnswer>;
  /** Claims the question for an answer given here: undefined when it was first, else who was. */
  claim(user: string, answer: unknown): Promise<Answerer | undefined>;
  /** How long other nodes still ask their clients (ms; 0: none does). */
  heldElsewhere(): Promise<number>;
  /** The question ended here (answered or withdrawn): the other nodes cancel what they asked. */
  close(): void;
}

/** How questions reach the cluster's other nodes (cluster/); none: this process only. */
export interface QuestionBoard {
  /** This node's id (the audit log says where an answer was given). */
  readonly nodeId: string;
  /** Publishes a question of a session run here; rejects when the ledger could not take it. */
  ask(sessionId: string, params: Params): Promise<AskedQuestion>;
}

/** How an answer ends the question, as the fan-out reports it. */
export type Answered = (
  client: HubClient | undefined,
  answer: unknown,
  by?: { user: string; node: string },
) => void;

// Asks the question here and everywhere; the first claimed answer is the agent's.
export async function askEverywhere(
  attachments: Attachments,
  question: AskedQuestion,
  params: Params,
  graceMs: number,
  signal: AbortSignal | undefined,
  answered: Answered,
): Promise<unknown> {
  const sessionId = String(params["sessionId"]);
  const stop = new AbortController();
  let wake = () => undefined as void;
  const askees = new Askees(
    params,
    (client, answer) =>
      question.claim(client.user?.name ?? BUILTIN_ADMIN, answer),
    () => wake(),
    question.node,
  );
  const askAll = () => {
    for (const a of attachments.attached(sessionId))
      if (attachments.mayAnswer(sessionId, a.client)) askees.add(a.client);
  };
  const ended: Promise<End> = Promise.race([
    askees.won.then((w) => ({ local: w })),
    question.remote.then((r) => ({ remote: r })),
  ]);
  const onAbort = () => stop.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    askAll();
    const end = await Promise.race([
      ended,
      waitForAnyone(
        attachments,
        sessionId,
        askees,
        question,
        graceMs,
        stop.signal,
        askAll,
        (w) => (wake = w),
      ),
    ]);
    if (signal?.aborted) throw signal.reason;
    return outcome(end, askees, params, answered);
  } finally {
    signal?.removeEventListener("abort", onAbort);
    stop.abort();
    askees.settle({});
    question.close();
  }
}

type End = { local: Won } | { remote: RemoteAnswer } | undefined;

// The question's outcome: the answer that claimed it (here or on another node), else the
// refusal of a client that would not answer, else the policy's refusal (nobody answered).
function outcome(
  end: End,
  askees: Askees,
  params: Params,
  answered: Answered,
): unknown {
  if (end && "local" in end) {
    answered(end.local.client, end.local.answer);
    return end.local.answer;
  }
  if (end && "remote" in end) {
    askees.settle({ user: end.remote.user, node: end.remote.node });
    answered(undefined, end.remote.answer, end.remote);
    return end.remote.answer;
  }
  if (askees.error) throw askees.error;
  const options = (params as unknown as RequestPermissionRequest).options;
  return { outcome: outcomeFor("reject", options) };
}

// Resolves (undefined) once nobody here or on another node has been asked for `graceMs`, or on
// abort; asks every client that attaches meanwhile.
async function waitForAnyone(
  attachments: Attachments,
  sessionId: string,
  askees: Askees,
  question: AskedQuestion,
  graceMs: number,
  signal: AbortSignal,
  askAll: () => void,
  onChange: (wake: () => void) => void,
): Promise<undefined> {
  let deadline = Date.now() + graceMs;
  while (!signal.aborted) {
    let left = deadline - Date.now();
    if (askees.pending > 0) {
      left = graceMs;
      deadline = Date.now() + graceMs;
    } else if (left <= 0) {
      // Nobody here: other nodes may still be asking their clients (their hold).
      left = await question.heldElsewhere().catch(() => 0);
      if (left <= 0) return undefined;
      deadline = Date.now() + left;
    }
    const round = new AbortController();
    const stopRound = () => round.abort();
    signal.addEventListener("abort", stopRound, { once: true });
    const changed = new Promise<false>((resolve) =>
      onChange(() => resolve(false)),
    );
    try {
      const attached = await Promise.race([
        attachments.nextAttach(sessionId, left, round.signal),
        changed,
      ]);
      if (attached) askAll();
    } finally {
      signal.removeEventListener("abort", stopRound);
      round.abort();
    }
  }
  return undefined;
}
