// The block printed last on the terminal (a tool call, the plan), so it can be updated in place
// when it changes: the cursor goes up over the rows it fills — counted as the terminal wrapped
// them — and what is below is cleared. A block that is no longer last, or that has scrolled
// out of reach, is never redrawn: the caller prints what changed below instead.
import { UP } from "./ansi.js";
import { screenRows } from "./width.js";

export interface TerminalSize {
  columns: number;
  rows: number;
}

const CLEAR_BELOW = "\x1b[J";

export class LiveBlock {
  private key: string | undefined;
  private rows = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly size: () => TerminalSize,
  ) {}

  /** Whether the block printed last is this one and can still be reached. */
  isLast(key: string): boolean {
    return this.key === key && this.rows < this.size().rows;
  }

  /** Prints lines below everything; they become the last block under `key`. */
  print(key: string | undefined, lines: string[]): void {
    const { columns } = this.size();
    for (const l of lines) this.write(`${l}\n`);
    this.key = key;
    this.rows = lines.reduce((n, l) => n + screenRows(l, columns), 0);
  }

  /** Replaces the last block (cursor at the start of the row below it) with new lines. */
  redraw(key: string, lines: string[]): void {
    this.write(`\r${UP(this.rows)}${CLEAR_BELOW}`);
    this.print(key, lines);
  }

  /** Something else was printed: the last block can no longer be redrawn. */
  forget(): void {
    this.key = undefined;
  }
}

/** Erases a line that is still being typed out (cursor at its end), however it wrapped. */
export function eraseTyped(
  text: string,
  size: TerminalSize,
): string | undefined {
  const rows = screenRows(text, size.columns);
  if (rows >= size.rows) return undefined;
  return `\r${UP(rows - 1)}${CLEAR_BELOW}`;
}
