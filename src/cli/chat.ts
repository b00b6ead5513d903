// `acphub chat`: a conversation at the terminal. A prompt line with history; each turn streamed
// as it happens; Ctrl-C once cancels the running turn, twice exits; slash commands for acphub
// and the agent. With stdin not a terminal, each input line is one turn, rendered plainly.
import { createInterface } from "node:readline";
import { errorMessage } from "../shared/errors.js";
import { chatHistory } from "../app/chat-history.js";
import { loadCliConfig } from "../app/load-config.js";
import {
  fromFlags,
  openCommandClient,
  type SessionFlags,
} from "../app/command-client.js";
import type { LocalClient } from "../app/local-client.js";
import { fail } from "./guard.js";
import { outputClosed, whenOutputCloses } from "./broken-pipe.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { exitNow } from "./exit-now.js";
import {
  noticeLine,
  type CliEvent,
  type NoticeEvent,
} from "../app/client-events.js";
import { plainRenderer, stdio } from "./render.js";
import { runSlash } from "./slash.js";
import { colorWanted, makeStyle } from "./tty/ansi.js";
import { ttyApprover } from "./tty/approver.js";
import { KeyReader } from "./tty/keys.js";
import { ttyRenderer, type TurnRenderer } from "./tty/renderer.js";
import { safeDeep, safeText } from "./tty/safe-text.js";

export interface ChatOptions extends SessionFlags {
  thoughts?: boolean;
}

const HISTORY_SIZE = 500;

// Turns rendered as plain lines; `notice` keeps acphub's notices on a line of their own.
function plainTurns(): TurnRenderer & { notice: (e: NoticeEvent) => void } {
  const render = plainRenderer(stdio);
  return {
    event: render,
    notice: render,
    startTurn: () => undefined,
    endTurn: (s) =>
      process.stdout.write(
        `\n${s.error ? `error: ${s.error}` : `(${s.stopReason ?? ""})`}\n`,
      ),
    say: (line) => process.stdout.write(`${line}\n`),
    hold: () => undefined,
  };
}

export async function chatCommand(options: ChatOptions): Promise<ExitCode> {
  const interactive =
    process.stdin.isTTY === true && process.stdout.isTTY === true;
  const style = makeStyle(colorWanted(process.stdout));
  const renderer: TurnRenderer & { notice?: (e: NoticeEvent) => void } =
    interactive && style.enabled
      ? ttyRenderer(process.stdout, style, { showThoughts: options.thoughts })
      : plainTurns();
  let turnAbort: AbortController | undefined;
  let interrupts = 0;
  const keys = new KeyReader(process.stdin, () => {
    interrupts += 1;
    if (interrupts >= 2) return exitNow(opened);
    renderer.say(style.dim("cancelling… (Ctrl-C again to exit)"));
    turnAbort?.abort();
  });
  const onEvent = (raw: CliEvent) => {
    const event = safeDeep(raw); // agent text reaches the terminal harmless
    if (event.type === "notice") {
      if (renderer.notice) renderer.notice(event);
      else renderer.say(style.dim(noticeLine(event)));
      return;
    }
    renderer.event(event);
  };
  let done = false;
  let closeInput: (() => void) | undefined;
  // The reader went away (`acphub chat < script | head -1`): cancel the turn, stop reading
  // input and shut the agent down, then exit 141 — as `run` does.
  const undoPipe = whenOutputCloses(() => {
    done = true;
    turnAbort?.abort();
    closeInput?.();
  });
  let hub: LocalClient;
  let opened: LocalClient | undefined; // set once open: a second Ctrl-C sends its spans first
  let stateDir: string;
  try {
    const loaded = loadCliConfig(options);
    stateDir = loaded.paths.stateDir;
    hub = await openCommandClient(loaded, options, {
      ...fromFlags(loaded, options, interactive ? "ask" : "approve-reads"),
      replay: true,
      approver: interactive ? ttyApprover(keys, renderer, style) : undefined,
      render: onEvent,
      workflows: true,
      mockNotice: (notice) => process.stderr.write(notice),
    });
    opened = hub;
  } catch (error) {
    undoPipe();
    return fail(error);
  }
  renderer.say(
    style.dim(
      `acphub chat · ${hub.agentName} · session ${hub.sessionId} · /help for commands`,
    ),
  );
  const kept = chatHistory(stateDir);
  let typedAhead = "";
  const turn = async (text: string) => {
    turnAbort = new AbortController();
    interrupts = 0;
    if (interactive) keys.start();
    renderer.startTurn();
    try {
      const response = await hub.gateway.prompt(
        { sessionId: hub.sessionId, prompt: [{ type: "text", text }] },
        turnAbort.signal,
      );
      renderer.endTurn({
        stopReason: String(response["stopReason"]),
        usage: response["usage"] as Record<string, unknown> | null,
      });
    } catch (error) {
      renderer.endTurn({ error: safeText(errorMessage(error)) });
    } finally {
      turnAbort = undefined;
      typedAhead = keys.stop();
    }
  };
  const handle = async (raw: string) => {
    const line = raw.trim();
    if (!line) return;
    const say = (l: string) => renderer.say(l);
    const exit = () => void (done = true);
    const slash = {
      gateway: hub.gateway,
      sessionId: hub.sessionId,
      style,
      say,
      agentCommands: () => safeDeep(hub.agentCommands()),
      exit,
    };
    const text = line.startsWith("/")
      ? await runSlash(line, slash).catch(
          (error: unknown) =>
            void say(style.red(safeText(errorMessage(error)))),
        )
      : line;
    if (text && !done) await turn(text);
  };
  if (interactive) {
    // One line editor per input line: while a turn runs, keys belong to the key reader alone.
    while (!done) {
      const line = await readLine(
        kept.lines,
        kept.save,
        style.bold("› "),
        typedAhead,
        (close) => (closeInput = close),
      );
      typedAhead = "";
      if (line === undefined) break;
      await handle(line);
    }
  } else {
    const rl = createInterface({ input: process.stdin, terminal: false });
    closeInput = () => rl.close();
    for await (const line of rl) {
      await handle(line);
      if (done) break;
    }
    rl.close();
  }
  await hub.close();
  undoPipe();
  return outputClosed() ? EXIT_CODES.brokenPipe : EXIT_CODES.ok;
}

// Reads one line at the terminal; undefined on Ctrl-D, or Ctrl-C twice within two seconds.
function readLine(
  history: string[],
  save: (h: string[]) => void,
  promptText: string,
  typedAhead: string,
  onOpen: (close: () => void) => void,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const rl = createInterface({
      input: process.stdin,
      output: process.stdout,
      terminal: true,
      history: [...history],
      historySize: HISTORY_SIZE,
      prompt: promptText,
    });
    onOpen(() => rl.close());
    let answered = false;
    let lastInterrupt = 0;
    rl.on("history", save);
    rl.on("line", (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.on("close", () => {
      if (!answered) resolve(undefined);
    });
    rl.on("SIGINT", () => {
      if (Date.now() - lastInterrupt < 2000) return rl.close();
      lastInterrupt = Date.now();
      process.stdout.write("\n(Ctrl-C again to exit)\n");
      rl.prompt();
    });
    rl.prompt();
    if (typedAhead) rl.write(typedAhead.replace(/\r/g, "\n"));
  });
}
