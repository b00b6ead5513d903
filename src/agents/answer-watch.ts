// Runs a callback when the agent's answer to one request is read off the wire, before the SDK
// resolves the request (a tick later): what the agent writes after its answer, in the same
// chunk, is then known not to belong to that request (session/load's replay ends there).
import type { AnyMessage } from "@agentclientprotocol/sdk";

type Id = string | number;

export class AnswerWatch {
  /** Watches whose request is not written yet, by method and session id. */
  private readonly unsent = new Map<string, () => void>();
  /** Watches by the id of the request written. */
  private readonly byId = new Map<Id, () => void>();

  // Calls `onAnswer` when the answer to the next `method` request for `sessionId` is read;
  // the returned function drops the watch.
  watch(method: string, sessionId: string, onAnswer: () => void): () => void {
    const key = JSON.stringify([method, sessionId]);
    this.unsent.set(key, onAnswer);
    return () => {
      if (this.unsent.get(key) === onAnswer) this.unsent.delete(key);
      for (const [id, fn] of this.byId)
        if (fn === onAnswer) this.byId.delete(id);
    };
  }

  // Sees each frame written to the agent: a watched request gets its id.
  sent(message: AnyMessage): void {
    if (!("method" in message) || !("id" in message)) return;
    const sessionId = (message.params as { sessionId?: unknown } | undefined)
      ?.sessionId;
    const key = JSON.stringify([message.method, sessionId]);
    const onAnswer = this.unsent.get(key);
    if (!onAnswer || message.id === null) return;
    this.unsent.delete(key);
    this.byId.set(message.id, onAnswer);
  }

  // Sees each frame read from the agent: the answer to a watched request fires its callback.
  read(message: AnyMessage): void {
    if ("method" in message || !("id" in message) || message.id === null)
      return;
    const onAnswer = this.byId.get(message.id);
    if (!onAnswer) return;
    this.byId.delete(message.id);
    onAnswer();
  }
}
