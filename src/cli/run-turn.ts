// One turn of `acphub run`: the prompt, its cancellation (Ctrl-C, --timeout, a closed
// stdout), and the exit code for how it ended.
import { outputClosed, whenOutputCloses } from "./broken-pipe.js";
import { timeoutError, type Deadline } from "../app/deadline.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { exitNow } from "./exit-now.js";
import type { LocalClient } from "../app/local-client.js";
import type { Sink } from "./render.js";
import { stopExitCode, stopLine } from "./stop-reasons.js";
import type { TurnRenderer } from "./tty/renderer.js";

export interface TurnOptions {
  json: boolean;
  /** `--timeout`: fires when the turn must be cancelled. */
  deadline?: Deadline;
  refused: () => boolean;
  tty?: TurnRenderer;
  sink: Sink;
}

// Sends the prompt and streams the turn; the exit code says how it ended.
export async function runTurn(
  hub: LocalClient,
  text: string,
  opts: TurnOptions,
): Promise<ExitCode> {
  const stdio = opts.sink;
  const controller = new AbortController();
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) return exitNow(hub);
    interrupted = true;
    // Said at once: an agent may take a while to honour the cancel, or ignore it.
    stdio.err("\nacphub: cancelling the turn… (Ctrl-C again to exit now)\n");
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  // The reader went away (`| head -1`): nobody is left to read the turn, so cancel it.
  const undoPipe = whenOutputCloses(() => controller.abort());
  const onDeadline = () => controller.abort();
  opts.deadline?.signal.addEventListener("abort", onDeadline, { once: true });
  opts.tty?.startTurn();
  try {
    const prompt = [{ type: "text", text }];
    const response = await hub.gateway.prompt(
      { sessionId: hub.sessionId, prompt },
      controller.signal,
    );
    const stopReason = String(response["stopReason"]);
    if (opts.json)
      stdio.out(
        JSON.stringify({
          type: "result",
          sessionId: hub.sessionId,
          ...response,
        }) + "\n",
      );
    else if (opts.tty)
      opts.tty.endTurn({
        stopReason,
        usage: response["usage"] as Record<string, unknown> | null,
      });
    else stdio.out("\n");
    if (outputClosed()) return EXIT_CODES.brokenPipe;
    if (interrupted) return EXIT_CODES.interrupted;
    if (opts.deadline?.signal.aborted) throw timeoutError(opts.deadline, true);
    const line = opts.json || opts.tty ? undefined : stopLine(stopReason);
    if (line) stdio.err(`${line}\n`);
    const stopped = stopExitCode(stopReason);
    if (stopped !== EXIT_CODES.ok) return stopped;
    return opts.refused() ? EXIT_CODES.permissionDenied : EXIT_CODES.ok;
  } finally {
    opts.deadline?.signal.removeEventListener("abort", onDeadline);
    process.off("SIGINT", onSigint);
    undoPipe();
  }
}
