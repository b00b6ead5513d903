// Raw key input while a turn runs: Ctrl-C goes to the interrupt handler, other keys to a
// pending question (a permission prompt). The line editor owns stdin the rest of the time.

// One read may carry several keys (fast typing, a key repeat, a paste): split into keys, an
// escape sequence (an arrow key, Alt-x) kept whole so that it is never taken for Esc.
// eslint-disable-next-line no-control-regex -- ESC starts the sequences matched here
const KEY = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1bO.|\x1b[^]?|[^]/gu;

export class KeyReader {
  private waiter: ((key: string) => void) | undefined;
  private active = false;
  /** Whether a question is open: keys pressed now answer it. */
  private asking = false;
  /** Keys pressed while a question was open that it has not read yet. */
  private answers: string[] = [];
  /** Keys typed during the turn that no question took: typed ahead for the next prompt. */
  private typedAhead = "";
  private readonly onData = (data: Buffer) => {
    for (const key of data.toString("utf8").match(KEY) ?? []) {
      if (key === "\u0003") this.onInterrupt();
      else if (this.waiter) {
        const waiter = this.waiter;
        this.waiter = undefined;
        waiter(key);
      } else if (this.asking) this.answers.push(key);
      else this.typedAhead += key;
    }
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
    this.endQuestion();
    const ahead = this.typedAhead;
    this.typedAhead = "";
    return ahead;
  }

  // Opened before the question is printed, so that no key pressed once it shows is lost.
  // Keys typed before stay type-ahead: a digit typed ahead never answers an unseen question.
  beginQuestion(): void {
    this.asking = true;
    this.answers = [];
  }

  // Keys pressed after the answer go back to the type-ahead for the next prompt.
  endQuestion(): void {
    this.asking = false;
    this.typedAhead += this.answers.join("");
    this.answers = [];
  }

  /** The next key pressed (or already pressed for the open question); rejects on abort. */
  next(signal: AbortSignal): Promise<string> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const pressed = this.answers.shift();
      if (pressed !== undefined) {
        resolve(pressed);
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
