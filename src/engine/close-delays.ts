// Waits that end early when the gateway closes (a finished turn's compaction runs then). Each
// wait used to listen on the gateway's one AbortSignal until its timer fired: with many turns
// ending at once (a busy hub) that was one listener per turn on one signal, hundreds of them,
// and Node's MaxListenersExceededWarning. Here a close wakes every pending wait from one set.
export class CloseDelays {
  private readonly waking = new Set<() => void>();
  private closed = false;

  /** Resolves after `ms` milliseconds, or at once when closed (already, or meanwhile). */
  wait(ms: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waking.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waking.add(wake);
    });
  }

  /** Resolves when `work` settles, or at once when closed (already, or meanwhile). */
  until(work: Promise<unknown>): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        this.waking.delete(wake);
        resolve();
      };
      this.waking.add(wake);
      work.then(wake, wake);
    });
  }

  /** Ends every pending wait now, and every later one at once. */
  close(): void {
    this.closed = true;
    for (const wake of [...this.waking]) wake();
  }

  /** Waits not yet ended (for tests and diagnostics). */
  get pending(): number {
    return this.waking.size;
  }
}
