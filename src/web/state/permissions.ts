// The agents' permission questions waiting for this page's answer: each resolves with the
// option clicked, or "cancelled" when the hub withdraws it or the connection drops.
import type { Params } from "../acp/hub-client.js";
import { notifyWaiting } from "./notify.js";

export interface PendingPermission {
  id: number;
  params: Params;
  answer(outcome: Params): void;
}

export class Permissions {
  list: PendingPermission[] = [];
  private next = 1;

  constructor(private readonly changed: () => void) {}

  // Shows a question until it is answered or withdrawn; resolves with the outcome.
  ask(params: Params, signal: AbortSignal): Promise<Params> {
    return new Promise((resolve) => {
      const entry: PendingPermission = {
        id: this.next++,
        params,
        answer: (outcome) => {
          this.list = this.list.filter((p) => p !== entry);
          this.changed();
          resolve(outcome);
        },
      };
      signal.addEventListener("abort", () =>
        entry.answer({ outcome: { outcome: "cancelled" } }),
      );
      this.list = [...this.list, entry];
      notifyWaiting(params);
      this.changed();
    });
  }

  // The connection dropped: its questions can no longer be answered.
  cancelAll(): void {
    for (const p of [...this.list])
      p.answer({ outcome: { outcome: "cancelled" } });
  }
}
