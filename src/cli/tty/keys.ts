// Raw key input while a turn runs: Ctrl-C goes to the interrupt handler, other keys to a
// pending question (a permission prompt). The line editor owns stdin the rest of the time.
export class KeyReader {
  private waiter: ((key: string) => void) | undefined;
  private active = false;
  /** Keys typed during the turn that no question took: typed ahead for the next prompt. */
  private typedAhead = "";
  private readonly onData = (data: Buffer) => {
    const key = data.toString("utf8");
    if (key === "\u0003") {
      this.onInterrupt();
      return;
    }
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) waiter(key);
    else this.typedAhead += key;
  };

  constructor(
    private readonly input: NodeJS.ReadStream,
    private readonly onInterrupt: () => void,
  ) {}

  start(): void {
    if (this.active) return;
    this.active = true;
    this.typedAhead = "";
    if (this.input.isTTY) this.input.setRawMode(true);
    this.input.on("data", this.onData);
    this.input.resume();
  }

  /** Stops reading keys; returns what was typed ahead, for the line editor. */
  stop(): string {
    if (!this.active) return "";
    this.active = false;
    this.input.off("data", this.onData);
    this.waiter = undefined;
    const ahead = this.typedAhead;
    this.typedAhead = "";
    return ahead;
  }

  /** The next key pressed; rejects when the signal aborts first. */
  next(signal: AbortSignal): Promise<string> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        this.waiter = undefined;
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiter = (key) => {
        signal.removeEventListener("abort", onAbort);
        resolve(key);
      };
    });
  }
}
