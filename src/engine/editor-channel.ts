// The gateway's side of the editor: the attached editor, what it advertised in `initialize`,
// and every message acphub sends it, with the agent's session ids replaced by acphub's.
import type { RunEvent } from "../contracts/events.js";
import type { Params } from "../protocol/raw.js";
import { isAvailable } from "../protocol/capabilities.js";
import { methodEntry } from "../protocol/method-table.js";
import { notServed } from "../protocol/wire-errors.js";
import { HubError } from "../shared/errors.js";
import { noticeParams, type NoticePayload } from "./notices.js";
import type { EditorPort, StoredEvent } from "./ports.js";
import type { ReplayPart } from "./ledger-port.js";
import {
  frameHead,
  replayChunks,
  shownUpdates,
  updateFrame,
  updateParams,
} from "./wire-updates.js";
import type { SessionTable } from "./session-table.js";

interface EditorCapabilities {
  fs?: { readTextFile?: boolean; writeTextFile?: boolean };
  terminal?: boolean;
  session?: { notices?: unknown };
}

export class EditorChannel {
  private editor: EditorPort | undefined;
  private head: { hubId: string; text: string } | undefined;
  private capabilities: Params = {};

  constructor(readonly sessions: SessionTable) {}

  attach(editor: EditorPort): void {
    this.editor = editor;
  }

  /** Records the editor's capabilities from `initialize`, so the host knows what to forward. */
  setCapabilities(capabilities: Params): void {
    this.capabilities = capabilities;
  }

  get editorCapabilities(): Params {
    return this.capabilities;
  }

  // Whether the editor serves an fs/terminal method itself (it advertised the capability).
  handles(method: string): boolean {
    const c = this.capabilities as EditorCapabilities;
    if (method === "fs/read_text_file") return c.fs?.readTextFile === true;
    if (method === "fs/write_text_file") return c.fs?.writeTextFile === true;
    return c.terminal === true;
  }

  /** A request from the agent to the editor (permission, fs, terminal, `_` methods). */
  async request<T = unknown>(
    method: string,
    params: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    if (!this.editor) throw new HubError("CLOSED", "no editor is connected");
    this.checkRelay(method);
    return this.editor.request<T>(
      method,
      this.sessions.toHubIds(params),
      signal,
    );
  }

  /** A notification from the agent to the editor; one the editor cannot take is dropped. */
  notify(method: string, params: unknown): void {
    if (!this.mayRelay(method)) return;
    const sent = this.editor?.notify(method, this.sessions.toHubIds(params));
    sent?.catch(() => undefined);
  }

  // Sends a notification whose session id is already acphub's (with its ledger seq, if any),
  // in order with relayed frames.
  async send(
    method: string,
    params: Params,
    delivery?: { seq?: number },
  ): Promise<void> {
    if (this.editor?.writeFrames)
      this.editor.writeFrames(
        `${JSON.stringify({ jsonrpc: "2.0", method, params })}\n`,
      );
    else await this.editor?.notify(method, params, delivery);
  }

  /** A relayed update stored as `seq`: `text` is the stored JSON of `payload` (params without
   *  sessionId). An editor that takes frames gets those bytes; others the params and the seq. */
  sendStored(
    hubId: string,
    seq: number,
    text: string,
    payload: Params,
  ): unknown {
    if (!this.editor?.writeFrames)
      return this.editor?.notify(
        "session/update",
        { sessionId: hubId, ...payload },
        { seq, text },
      );
    if (this.head?.hubId !== hubId)
      this.head = { hubId, text: frameHead(hubId) };
    this.editor.writeFrames(updateFrame(this.head.text, text));
    return undefined;
  }

  /** Whether the editor takes ready frames (stdio): a replay may then come as ReplayParts. */
  get takesFrames(): boolean {
    return this.editor?.writeFrames !== undefined;
  }

  /** Replays stored events (session/load): as stored, in large writes, when the editor takes
   *  frames (then the events may hold frames made by the ledger: ReplayPart). */
  async replay(hubId: string, events: readonly ReplayPart[]): Promise<void> {
    const editor = this.editor;
    if (editor?.writeFrames) {
      // Queued in order: what is sent next (the answer to session/load) follows the replay.
      for (const chunk of replayChunks(hubId, events, this.noticesShown))
        editor.writeFrames(chunk);
    } else {
      for (const event of events as StoredEvent[])
        for (const shown of shownUpdates(event, this.noticesShown) ?? [])
          await editor?.notify("session/update", updateParams(hubId, shown));
    }
  }

  /** Resolves once everything sent so far has been handed to the editor's output. */
  async drained(): Promise<void> {
    await this.editor?.drained?.();
  }

  /** Shows an in-process editor (the CLI) an event that is not a session/update. */
  observe(hubId: string, event: RunEvent): void {
    this.editor?.observe?.(hubId, event);
  }

  /** Tells the editor something about its session: a notice when it can show one, else text
   *  on its own line. Not stored: notices that are history go through tellStored (notices.ts). */
  async tell(hubId: string, text: string): Promise<void> {
    const notice: NoticePayload = { severity: "info", title: text };
    await this.send("session/update", {
      sessionId: hubId,
      ...noticeParams(notice, this.noticesShown),
    });
  }

  /** Shows a notice stored as `seq`, in the form this editor takes (as its replay will). */
  async showNotice(
    hubId: string,
    seq: number,
    notice: NoticePayload,
  ): Promise<void> {
    const params = {
      sessionId: hubId,
      ...noticeParams(notice, this.noticesShown),
    };
    await this.send("session/update", params, { seq });
  }

  // Throws unless the editor may receive `method` from the agent: a relayed method needs the
  // capability the editor advertised; a refused one never goes; unknown ones do.
  private checkRelay(method: string): void {
    const entry = methodEntry(method);
    if (!entry || entry.from === "editor") return;
    if (entry.handling === "refused") throw notServed(method, entry.note);
    if (entry.handling !== "relayed" || isAvailable(entry, this.capabilities))
      return;
    const what = entry.capability?.join(".") ?? method;
    throw notServed(method, `the editor did not advertise ${what}`);
  }

  private mayRelay(method: string): boolean {
    try {
      this.checkRelay(method);
      return true;
    } catch {
      return false;
    }
  }

  private get noticesShown(): boolean {
    const notices = (this.capabilities as EditorCapabilities).session?.notices;
    return notices !== undefined && notices !== null;
  }
}
