// `acphub run`: one prompt against one agent, streamed as plain text or NDJSON, with exit
// codes scripts can rely on. Ctrl-C cancels the turn (exit 130); a second Ctrl-C exits now.
import type { RunEvent } from "../contracts/events.js";
import type { PermissionMode } from "../config/schema.js";
import { isAllowed } from "../protocol/permission-options.js";
import { errorMessage, HubError, isHubError } from "../shared/errors.js";
import {
  cancelGraceMsOf,
  prespawnAgent,
  type AgentProcess,
} from "../app/prespawn.js";
import type { AgentLaunch } from "../app/hub-client.js";
import type { GlobalOptions } from "../app/context.js";
import { loadCliConfig } from "../app/load-config.js";
import { workingDir } from "./cwd.js";
import { mockNoticeOnce } from "../app/mock-notice.js";
import { toExitCode, type ExitCode } from "./exit-codes.js";
import {
  commandDeadline,
  DEFAULT_HUB_WAIT_MS,
  hubUnanswered,
  timeoutError,
  withinDeadline,
  type Deadline,
} from "./deadline.js";
import { runTurn } from "./run-turn.js";
import type { LocalClient } from "../app/local-client.js";
import { noticeLine, type CliEvent } from "../app/client-events.js";
import { jsonRenderer, plainRenderer, type Sink } from "./render.js";
import { colorWanted, makeStyle } from "./tty/ansi.js";
import { ttyRenderer } from "./tty/renderer.js";
import { safeText, safeDeep } from "./tty/safe-text.js";

export interface RunOptions extends GlobalOptions {
  agent?: string;
  cwd?: string;
  session?: string;
  json?: boolean;
  timeout?: number;
  permissions?: PermissionMode;
  /** A running hub to use instead of spawning the agent here. */
  hub?: string;
  tokenFile?: string;
}

const stdio: Sink = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
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

export function reportError(
  error: unknown,
  json: boolean,
  verbose = false,
): void {
  const code = isHubError(error) ? error.code : "INTERNAL";
  if (json)
    stdio.out(
      JSON.stringify({ type: "error", code, message: errorMessage(error) }) +
        "\n",
    );
  else
    stdio.err(
      `acphub: ${safeText(errorMessage(error))}\n${verbose && error instanceof Error && error.stack ? `${error.stack}\n` : ""}`,
    );
}

// A permission refused, or a file or terminal request the policy or sandbox refused.
export function isRefusal(event: RunEvent): boolean {
  if (event.type === "permission")
    return !isAllowed(event.outcome, event.request.options);
  return event.type === "audit" && !event.allowed;
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
  let prespawned: AgentProcess | undefined;
  let deadline: Deadline | undefined;
  let started = false;
  let hubStart: AbortSignal | undefined;
  try {
    const loaded = loadCliConfig(options);
    deadline = commandDeadline(options.timeout, cancelGraceMsOf(loaded.config));
    loaded.config = withinDeadline(loaded.config, deadline);
    const text = await promptText(words);
    const cwd = workingDir(options.cwd);
    const hubLaunch = options.hub
      ? await reachedHub(options.hub, loaded.paths.stateDir, options, deadline)
      : undefined;
    // Without --timeout, reaching the hub and opening the session is still bounded.
    if (options.hub && !deadline)
      hubStart = AbortSignal.timeout(DEFAULT_HUB_WAIT_MS);
    // Start the agent now: its start-up overlaps with loading the rest of acphub.
    if (!options.session)
      prespawned = await prespawnAgent(loaded, options.agent, cwd, hubLaunch);
    const [{ contextFrom }, { openLocalClient }] = await Promise.all([
      import("../app/context.js"),
      import("../app/local-client.js"),
    ]);
    const ctx = contextFrom(loaded, options);
    hub = await openLocalClient({
      ctx,
      prespawned,
      launch: hubLaunch,
      agent: options.agent,
      sessionId: options.session,
      viaHub: hubLaunch !== undefined,
      cwd,
      signal: deadline?.signal ?? hubStart,
      mode:
        options.permissions ?? ctx.config.permissions?.mode ?? "approve-reads",
      render: show,
    });
    const notice =
      hub.mockByDefault && !json ? mockNoticeOnce(ctx.paths) : undefined;
    if (notice) stdio.err(notice);
    for (const title of hub.notices)
      show({
        type: "notice",
        sessionId: hub.sessionId,
        severity: "warning",
        title,
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
        : hubStart?.aborted && !started
          ? hubUnanswered(options.hub!, DEFAULT_HUB_WAIT_MS)
          : caught;
    reportError(error, json, options.verbose);
    return toExitCode(error);
  } finally {
    deadline?.dispose();
    await hub?.close();
    prespawned?.kill(); // only if it was never handed to a connection
  }
}

// The shim to the hub as the agent to launch, once something answers at the hub's address
// (within --timeout, else DEFAULT_HUB_WAIT_MS): an unreachable hub is exit 3 at once.
async function reachedHub(
  url: string,
  stateDir: string,
  options: RunOptions,
  deadline: Deadline | undefined,
): Promise<AgentLaunch> {
  const { reachedHubLaunch } = await import("../app/hub-client.js");
  return reachedHubLaunch(
    stateDir,
    url,
    options.tokenFile,
    deadline ? deadline.seconds * 1000 : DEFAULT_HUB_WAIT_MS,
  );
}
