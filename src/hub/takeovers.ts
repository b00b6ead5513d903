// A session whose runner stopped answering (a node killed: its lease holds until it lapses) is
// said to be so, and taken over here as soon as the lease lapses (issue 38): a prompt is refused
// naming the node and when the session is free (instead of "wait for it to end": it cannot
// end), a cancel is told the same, and the turn is ended as interrupted at the lease's expiry,
// without waiting for the next prompt — so every client sees it end.
import { setTimeout as sleep } from "node:timers/promises";
import { turnRunning } from "../engine/turn-gate.js";
import { noticeParams } from "../engine/notices.js";
import { HubError, isHubError } from "../shared/errors.js";
import type { Logger } from "../shared/logger.js";
import type { HubClient } from "./attachments.js";
import { Note } from "./frames.js";
import type { SessionRunner, StalledRunner } from "./runner.js";

/** Tries to take a session over after its lease should have lapsed (clocks differ a little). */
const MAX_TRIES = 10;
/** Time between tries when the lease was still held (ms), and after the expiry before the first. */
const RETRY_MS = 500;
/** How often a prompt waiting on another node looks whether that node stopped answering (ms),
 *  and how many times at most (a runner found dead within half a lease: the defaults' 5 s). */
const WATCH_MS = 1000;
const WATCH_TRIES = 60;

export class Takeovers {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly runner: SessionRunner | undefined,
    /** Ends the session's cut-off turn once this node holds its lease (refuses while held). */
    private readonly takeOver: (sessionId: string) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  /** The refusal of a turn while `holder` holds the session: stopped answering, or busy. */
  async refusal(sessionId: string, holder: string): Promise<HubError> {
    const stalled = await this.check(sessionId);
    return stalled?.node === holder
      ? runnerStopped(sessionId, stalled, "send the prompt again then")
      : turnRunning(sessionId, holder);
  }

  /** A cancel sent for a turn another node runs: told when that node stopped answering. */
  async cancelled(sessionId: string, client: HubClient): Promise<void> {
    await this.tellIfStalled(
      sessionId,
      client,
      "this cancel cannot reach that node, and nothing more is needed",
    );
  }

  /**
   * A new prompt carried to the runner waits (until `answered`) for the session to be free: told
   * as soon as that node is found to have stopped answering (two missed heartbeats; looked for
   * every WATCH_MS while it waits, at most WATCH_TRIES times), then runs here after the takeover.
   */
  async waiting(
    sessionId: string,
    client: HubClient,
    answered: AbortSignal,
  ): Promise<void> {
    const then = (node: string) =>
      `this prompt waits for it and then runs here (unless node ${node} had begun it: then it is answered as interrupted)`;
    for (let i = 0; i < WATCH_TRIES && !answered.aborted; i++) {
      if (await this.tellIfStalled(sessionId, client, then)) return;
      await sleep(WATCH_MS, undefined, { signal: answered }).catch(() => {});
    }
  }

  // A notice on the session to the client, when the session's runner stopped answering: told?
  private async tellIfStalled(
    sessionId: string,
    client: HubClient,
    then: string | ((node: string) => string),
  ): Promise<boolean> {
    const stalled = await this.check(sessionId);
    if (!stalled || client.closed) return false;
    const words = typeof then === "string" ? then : then(stalled.node);
    const why = runnerStopped(sessionId, stalled, words);
    const notice = { severity: "warning" as const, title: why.message };
    client.notify(
      new Note("session/update", { sessionId, ...noticeParams(notice, false) }),
    );
    return true;
  }

  /** Whether the session's runner stopped answering; if so its takeover is planned. */
  async check(sessionId: string): Promise<StalledRunner | undefined> {
    const stalled = await this.runner
      ?.stalled?.(sessionId)
      .catch(() => undefined);
    if (stalled) this.plan(sessionId, stalled.takeoverAt, 0);
    return stalled;
  }

  // Takes the session over once its lease lapsed (one plan per session).
  private plan(sessionId: string, at: number, tries: number): void {
    if (tries === 0 && this.timers.has(sessionId)) return;
    const delay = Math.max(0, at - Date.now()) + RETRY_MS;
    const timer = setTimeout(() => void this.fire(sessionId, tries), delay);
    timer.unref();
    this.timers.set(sessionId, timer);
  }

  private async fire(sessionId: string, tries: number): Promise<void> {
    try {
      await this.takeOver(sessionId);
      this.timers.delete(sessionId);
    } catch (error) {
      const busy = isHubError(error, "PROMPT_IN_FLIGHT");
      if (busy && tries + 1 < MAX_TRIES)
        return this.plan(sessionId, Date.now(), tries + 1);
      this.timers.delete(sessionId);
      if (!busy)
        this.logger.warn({ err: error, sessionId }, "cluster: takeover failed");
    }
  }

  /** Stops the planned takeovers (the hub closes). */
  close(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

// The words for a session whose runner stopped answering: which node, since when, and when this
// node takes it over (its lease's expiry), then what to do.
export function runnerStopped(
  sessionId: string,
  s: StalledRunner,
  then: string,
): HubError {
  const at = new Date(s.takeoverAt).toISOString();
  const inSecs = Math.max(0, Math.ceil((s.takeoverAt - Date.now()) / 1000));
  const silent = Math.round(s.silentMs / 1000);
  return new HubError(
    "PROMPT_IN_FLIGHT",
    `session ${sessionId}'s turn ran on node ${s.node}, which stopped answering ${silent} s ago: the turn cannot end there. The session is taken over when node ${s.node}'s lease lapses, at ${at.slice(11, 19)} UTC (in about ${inSecs} s), and its turn is ended as interrupted: ${then}`,
    { retryable: true, details: { node: s.node, takeoverAt: at } },
  );
}
