// A reader that goes away (`acphub run … | head -1`) ends the output, not the program with a
// stack trace: the command stops quietly with exit 141 (128 + SIGPIPE, what a shell reports
// for a program killed by a closed pipe), and `run` cancels its turn first.
import { EXIT_CODES } from "./exit-codes.js";

let onClosed: (() => void) | undefined;
let closed = false;

/** True once stdout's reader has gone away. */
export function outputClosed(): boolean {
  return closed;
}

// Lets a command clean up (cancel a turn) instead of exiting at once; returns the undo.
export function whenOutputCloses(fn: () => void): () => void {
  onClosed = fn;
  if (closed) fn();
  return () => {
    if (onClosed === fn) onClosed = undefined;
  };
}

// Installed once per command that writes to stdout for a reader (not `acp`: it has its own).
export function guardOutputPipes(verbose: boolean): void {
  const handle = (stream: NodeJS.WriteStream) => (error: Error) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EPIPE" && code !== "ERR_STREAM_DESTROYED") {
      if (stream !== process.stderr)
        process.stderr.write(
          `acphub: cannot write output: ${error.message}\n${verbose ? `${error.stack ?? ""}\n` : ""}`,
        );
      process.exit(EXIT_CODES.error);
    }
    if (stream === process.stderr) return; // nowhere left to say anything
    if (closed) return;
    closed = true;
    if (onClosed) onClosed();
    else process.exit(EXIT_CODES.brokenPipe);
  };
  process.stdout.on("error", handle(process.stdout));
  process.stderr.on("error", handle(process.stderr));
}
