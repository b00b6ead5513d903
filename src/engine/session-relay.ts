// One ordered path per hub session from the agent to the ledger and the editor. Every event —
// in a turn or outside one — is appended in arrival order; an update reaches the editor only
// after the batch holding it has committed (so nothing an editor sees is lost), serialized once:
// the same JSON text (known secrets masked inside its strings) is stored and sent. In a turn, a
// failed append means that update, and any after it, never reach the editor; the turn then fails
// with that error. Outside a turn, the editor is told that an update could not be stored, and
// sending resumes with the next stored event.
import type { RunEvent } from "../contracts/events.js";
import type { Params } from "../protocol/raw.js";
import type { Logger } from "../shared/logger.js";
import type { SessionCommandsPort, LedgerPort } from "./ports.js";
import { changesSettings, type SettingsStore } from "./session-settings.js";
import { OrderedSends } from "./ordered-sends.js";
import { updateText } from "../protocol/chunk-line.js";

/** What the relay needs of the editor side (the gateway's EditorChannel). */
export interface RelayEditor {
  send(method: string, params: Params): Promise<void>;
  sendStored(
    hubId: string,
    seq: number,
    text: string,
    payload: Params,
  ): unknown;
  observe(hubId: string, event: RunEvent): void;
  drained(): Promise<void>;
  /** A notice about the session (not stored). */
  tell(hubId: string, text: string): Promise<void>;
}

export interface RelayParts {
  ledger: LedgerPort;
  editor: RelayEditor;
  logger: Logger;
  settings: Pick<SettingsStore, "apply">;
  commands?: SessionCommandsPort;
  /** Masks known secrets in an update's JSON text (values only; same text when none). */
  mask?: (jsonText: string) => string;
}

/** Events relayed but not yet committed and written, before a turn waits for them. */
const MAX_IN_FLIGHT = 4096;

export class SessionRelay {
  private readonly sends = new OrderedSends({
    stopped: () => this.failure !== undefined,
    appendFailed: (error, inTurn) =>
      inTurn ? this.fail(error) : this.failedOutside(error),
    sendFailed: (error) => this.fail(error),
  });
  private failure: unknown;
  private held: RunEvent[] | undefined;
  private onFail: ((error: unknown) => void) | undefined;

  constructor(
    private readonly parts: RelayParts,
    readonly hubId: string,
    /** The session's folder: which session commands are advertised with the agent's. */
    private readonly cwd: string,
  ) {}

  /** The first append that failed, if any. */
  get failed(): unknown {
    return this.failure;
  }

  /** The turn's failure, taken by the turn that reports it: what follows is sent again. */
  takeFailure(): unknown {
    const failure = this.failure;
    this.failure = undefined;
    return failure;
  }

  /**
   * A turn starts: events outside it wait until its own events have all been pushed. A failure
   * before it is forgotten (the turn it stopped has failed); `onFail` hears this turn's first one.
   */
  hold(onFail?: (error: unknown) => void): void {
    this.failure = undefined;
    this.onFail = onFail;
    this.held ??= [];
  }

  /** The turn's events are all pushed: the held events follow them. */
  release(): void {
    this.onFail = undefined;
    const held = this.held ?? [];
    this.held = undefined;
    for (const event of held) this.push(event);
  }

  /** An event from outside a turn (command lists, mode changes, late updates). */
  pushOutside(event: RunEvent): void {
    if (this.held) this.held.push(event);
    else this.push(event);
  }

  /** Records and relays one event; returns at once. */
  push(event: RunEvent): void {
    const { editor, ledger, logger } = this.parts;
    const hubId = this.hubId;
    switch (event.type) {
      case "session_update": {
        const update =
          event.update.sessionUpdate === "available_commands_update"
            ? withSessionCommands(this.parts.commands, this.cwd, event.update)
            : event.update;
        const payload: Params = event.meta
          ? { update, _meta: event.meta }
          : { update };
        // Masked by value, then the one text is both stored and sent. A chunk read without
        // parsing (protocol/chunk-line.ts) is not serialized again.
        const read =
          update === event.update && !event.meta && updateText(update);
        const json = read ? `{"update":${read}}` : JSON.stringify(payload);
        const text = this.parts.mask ? this.parts.mask(json) : json;
        const sent = text === json ? payload : (JSON.parse(text) as Params);
        const send = (seq: number) => editor.sendStored(hubId, seq, text, sent);
        if (ledger.appendTo)
          ledger.appendTo(
            hubId,
            "update",
            text,
            this.sends.sink(send, this.held !== undefined),
          );
        else this.track(ledger.append(hubId, "update", text), send);
        if (changesSettings(update as Params))
          this.parts.settings
            .apply(hubId, update as Params)
            .catch((error: unknown) =>
              logger.warn(
                { err: error },
                "ledger: session settings not stored",
              ),
            );
        const title = (event.update as Params)["title"];
        if (
          event.update.sessionUpdate === "session_info_update" &&
          typeof title === "string"
        )
          ledger
            .updateSession(hubId, { title })
            .catch((error: unknown) =>
              logger.warn({ err: error }, "ledger: title not stored"),
            );
        return;
      }
      case "permission": {
        editor.observe(hubId, {
          ...event,
          sessionId: hubId,
          request: { ...event.request, sessionId: hubId },
        });
        const { request, outcome, decidedBy, reason } = event;
        this.track(
          ledger.append(hubId, "permission", {
            toolCall: request.toolCall,
            outcome,
            decidedBy,
            reason,
          }),
        );
        return;
      }
      case "extension_notification": {
        editor.observe(hubId, { ...event, sessionId: hubId });
        const params = {
          ...(event.params as Params),
          sessionId: hubId,
        };
        this.track(Promise.resolve(), () => editor.send(event.method, params));
        return;
      }
      case "audit":
        editor.observe(hubId, { ...event, sessionId: hubId });
        logger.info({ ...event, sessionId: hubId }, "agent request");
        return;
      case "client_request":
        editor.observe(hubId, { ...event, sessionId: hubId });
        return;
    }
  }

  // Sends after `stored` settles and after everything pushed before it was sent; the first
  // failure (an append, or the editor's output) stops every send after it.
  private track<T>(stored: Promise<T>, send?: (stored: T) => unknown): void {
    this.sends.add(stored, send, this.held !== undefined);
  }

  // Keeps the first failure; the running turn hears of it at once (to end the agent's turn).
  private fail(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    this.onFail?.(error);
  }

  // An event outside a turn was not stored: it is not shown, the editor hears why (no turn
  // would report it), and the relay goes on with the next event.
  private failedOutside(error: unknown): void {
    const { editor, logger } = this.parts;
    logger.warn(
      { err: error, sessionId: this.hubId },
      "ledger: an update outside a turn was not stored",
    );
    const why = error instanceof Error ? error.message : String(error);
    editor
      .tell(
        this.hubId,
        `an update from the agent could not be stored (${why}); it is not shown`,
      )
      .catch(() => undefined);
  }

  /** Too much is in flight (a slow disk or editor): the turn waits for `settled()`. */
  get congested(): boolean {
    return this.sends.inFlight > MAX_IN_FLIGHT;
  }

  /** Resolves when everything pushed so far is stored and handed to the editor. */
  async settled(): Promise<void> {
    await this.sends.settled();
    await this.parts.editor.drained();
  }
}

// An available_commands_update with acphub's commands added to the agent's (the agent's win).
export function withSessionCommands(
  commands: SessionCommandsPort | undefined,
  cwd: string | undefined,
  update: Record<string, unknown>,
): Record<string, unknown> {
  if (!commands || cwd === undefined) return update;
  const own = (update["availableCommands"] as { name: string }[]) ?? [];
  const names = new Set(own.map((c) => c.name));
  const extra = commands.list(cwd).filter((c) => !names.has(c.name));
  return { ...update, availableCommands: [...own, ...extra] };
}
