// The editor's permission answers, kept across one reconnect of the shim: an answer sent as
// the link dropped may never have reached the hub, which asks the same question (same session,
// same tool call) again once the shim has re-attached — and gets the answer the user gave.
type Msg = Record<string, unknown>;

/** Answers kept at most (the oldest go first). */
const MAX_ANSWERS = 1_000;

export class AnswerMemory {
  /** By question: the answer, and the link generation the question came on. */
  private readonly answers = new Map<
    string,
    { gen: number; result: unknown }
  >();

  // Keeps a selected permission answer to a question asked on link generation `gen`.
  remember(question: Msg, gen: number, reply: Msg): void {
    const key = keyOf(question);
    const outcome = (reply["result"] as Msg | undefined)?.["outcome"] as
      Msg | undefined;
    if (!key || outcome?.["outcome"] !== "selected") return;
    this.answers.delete(key);
    this.answers.set(key, { gen, result: reply["result"] });
    if (this.answers.size > MAX_ANSWERS)
      this.answers.delete(this.answers.keys().next().value as string);
  }

  // The answer to the same question asked on an earlier generation, once; answers older than
  // the previous generation are let go.
  recall(question: Msg, gen: number): unknown {
    for (const [key, a] of this.answers)
      if (a.gen < gen - 1) this.answers.delete(key);
    const key = keyOf(question);
    const kept = key === undefined ? undefined : this.answers.get(key);
    if (!key || !kept || kept.gen >= gen) return undefined;
    this.answers.delete(key);
    return kept.result;
  }
}

// A permission question's identity: its session and tool call.
function keyOf(question: Msg): string | undefined {
  if (question["method"] !== "session/request_permission") return undefined;
  const params = (question["params"] as Msg | undefined) ?? {};
  const toolCallId = (params["toolCall"] as Msg | undefined)?.["toolCallId"];
  if (typeof toolCallId !== "string") return undefined;
  return `${String(params["sessionId"])}\0${toolCallId}`;
}
