// `acphub run`: one prompt against one agent, streamed as plain text or NDJSON, with exit
// codes scripts can rely on. Ctrl-C cancels the turn (exit 130); a second Ctrl-C exits now.
import { HubError, isHubError } from "../shared/errors.js";
import { cancelGraceMsOf } from "../app/prespawn.js";
import { loadCliConfig } from "../app/load-config.js";
import { toExitCode, type ExitCode } from "./exit-codes.js";
import { readStdin, reportError } from "./guard.js";
import {
  commandDeadline,
  timeoutError,
  type Deadline,
} from "../app/deadline.js";
import { runTurn } from "./run-turn.js";
import {
  fromFlags,
  openCommandClient,
  type SessionFlags,
} from "../app/command-client.js";
import type { LocalClient } from "../app/local-client.js";
import { isRefusal, noticeLine, type CliEvent } from "../app/client-events.js";
import { jsonRenderer, plainRenderer, stdio } from "./render.js";
import { colorWanted, makeStyle } from "./tty/ansi.js";
import { ttyRenderer } from "./tty/renderer.js";
import { safeDeep } from "./tty/safe-text.js";

export interface RunOptions extends SessionFlags {
  json?: boolean;
  timeout?: number;
}

// The prompt from the arguments, or from stdin with `-`. One trailing newline is dropped from
// stdin: `echo "fix it" | acphub run -` means the same prompt as `acphub run "fix it"`; any
// further whitespace was typed on purpose and is kept.
async function promptText(words: string[]): Promise<string> {
  const fromStdin = words.length === 1 && words[0] === "-";
  const text = fromStdin
    ? (await readStdin()).replace(/\r?\n$/, "")
    : words.join(" ");
  if (!text.trim())
    throw new HubError(
      "USAGE",
      fromStdin
        ? "the prompt read from stdin is empty"
        : "no prompt given: pass it as arguments, or - to read stdin",
    );
  return text;
}

export async function runCommand(
  words: string[],
  options: RunOptions,
): Promise<ExitCode> {
  const json = options.json === true;
  let hub: LocalClient | undefined;
  let refused = false;
  const tty =
    !json && colorWanted(process.stdout)
      ? ttyRenderer(process.stdout, makeStyle(true))
      : undefined;
  const render = json ? jsonRenderer(stdio) : plainRenderer(stdio);
  const show = (raw: CliEvent) => {
    // --json relays what the agent sent; anything shown to people is made terminal-safe.
    const event = json ? raw : safeDeep(raw);
    if (event.type === "notice") {
      // acphub's voice: on stderr (plain), its own event type (--json), never the agent's.
      if (tty) tty.say(noticeLine(event));
      else render(event);
      return;
    }
    if (isRefusal(event)) refused = true;
    (tty?.event ?? render)(event);
  };
  let deadline: Deadline | undefined;
  let started = false;
  try {
    const loaded = loadCliConfig(options);
    deadline = commandDeadline(options.timeout, cancelGraceMsOf(loaded.config));
    const text = await promptText(words);
    hub = await openCommandClient(loaded, options, {
      ...fromFlags(loaded, options, "approve-reads"),
      deadline,
      prespawn: !options.session,
      render: show,
      mockNotice: json ? undefined : (notice) => stdio.err(notice),
    });
    started = true;
    return await runTurn(hub, text, {
      json,
      deadline,
      refused: () => refused,
      tty,
      sink: stdio,
    });
  } catch (caught) {
    // Whatever failed once the deadline passed (a killed agent, an aborted start) is a timeout.
    const error =
      deadline?.signal.aborted && !isHubError(caught, "TIMEOUT")
        ? timeoutError(deadline, started)
        : caught;
    reportError(error, json, options.verbose);
    return toExitCode(error);
  } finally {
    deadline?.dispose();
    await hub?.close();
  }
}
