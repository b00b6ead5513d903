// Session updates applied in batches: once an animation frame (or after 100 ms when the page
// is hidden and frames stop), or held back while a history replays so that it renders once.
import type { Params } from "../acp/hub-client.js";

export class UpdateBatch {
  /** While true, updates wait (a replay in progress); drain() applies them. */
  holding = false;
  private queue: Params[] = [];
  private scheduled = false;

  constructor(private readonly apply: (batch: Params[]) => void) {}

  push(params: Params): void {
    this.queue.push(params);
    if (this.scheduled || this.holding) return;
    this.scheduled = true;
    const run = () => this.flush();
    requestAnimationFrame(run);
    setTimeout(run, 100);
  }

  // Applies what a scheduled frame would have, now.
  flush(): void {
    if (!this.scheduled) return;
    this.scheduled = false;
    this.drain();
  }

  drain(): void {
    const batch = this.queue;
    this.queue = [];
    this.apply(batch);
  }

  clear(): void {
    this.queue = [];
  }
}
