// The one place that decides "a turn is running" in a session, and the one place session/cancel
// looks: each session's claim on its one turn (a prompt, a session command or a queued agent
// prompt holds it from its busy check until its end is recorded) and every prompt under way in
// it, from its arrival (its checks not yet done) to its answer. The refusal of a busy session
// (`PROMPT_IN_FLIGHT`) is made here only, whether the turn runs here or on another node; a
// prompt that asked to wait (a hub's queued prompt) is put in the session's line instead, and
// the claim passes to the first in line when the turn ends, with no moment free in between.
import { HubError } from "../shared/errors.js";
import { refusal } from "./admission.js";
import type { TurnPort } from "./ports.js";

/** A hold on a session's one turn, from its busy check until its end is recorded. */
export interface TurnClaim {
  readonly sessionId: string;
  /** Resolves when the claim is released. */
  readonly done: Promise<void>;
  /** Set by cancel(); the holder checks it before it starts its turn. */
  cancelled: boolean;
  /** Aborted by cancel(): a session command (workflow run) holding the claim stops on it. */
  readonly signal: AbortSignal;
  /** The agent's turn, once started. */
  turn?: TurnPort;
  /** Set on a claim passed to a prompt that waited in line: its line id. */
  readonly waited?: string;
  cancel(): void;
  release(): void;
}

/** A prompt waiting in its session's line for the turn (a hub's queued prompt). */
export interface TurnWaiter {
  /** Its line id (the queue id clients see). */
  readonly id: string;
  readonly sessionId: string;
  /** Resolves with its claim when the turns before it ended; rejects when it left the line. */
  readonly claimed: Promise<TurnClaim>;
  /** Leaves the line with `why` (its `claimed` rejects with it); false once it holds the claim. */
  leave(why: Error): boolean;
}

/** What a prompt that may wait asks of the gate: its line id and the line's bound. */
export interface WaitRequest {
  id: string;
  /** The most prompts a session's line holds (serve.maxQueuedPrompts). */
  max: number;
}

/** One place in a session's line. */
interface Waiting {
  id: string;
  grant: (claim: TurnClaim) => void;
  fail: (why: Error) => void;
}

/** A prompt's cancellation, from its arrival until it answers. */
export interface CancelScope {
  /** Aborted by the prompt's own signal or by session/cancel for its session. */
  signal: AbortSignal;
  release(): void;
}

// The refusal of a prompt while the session's turn runs: here, or (retryable, naming the node so
// a client such as the reconnecting shim tries again once it ended) on another node.
export function turnRunning(sessionId: string, node?: string): HubError {
  if (node === undefined)
    return new HubError(
      "PROMPT_IN_FLIGHT",
      `session ${sessionId} already has a turn running`,
    );
  return new HubError(
    "PROMPT_IN_FLIGHT",
    `session ${sessionId} is running a turn on node ${node}: wait for it to end, or cancel it`,
    { retryable: true, details: { node } },
  );
}

export class TurnGate {
  private readonly claims = new Map<string, TurnClaim>();
  /** Prompts under way per session, from their arrival to their answer. */
  private readonly scopes = new Map<string, Set<AbortController>>();
  /** Prompts waiting for each session's turn, first in line first. */
  private readonly lines = new Map<string, Waiting[]>();

  // Claims the session's turn synchronously (no await between the busy check and the claim):
  // undefined when another holds it.
  tryClaim(sessionId: string): TurnClaim | undefined {
    if (this.claims.has(sessionId)) return undefined;
    return this.grant(sessionId);
  }

  // A new claim held from now; its release passes the turn to the first in line, if any.
  private grant(sessionId: string, waited?: string): TurnClaim {
    const claim = newClaim(
      sessionId,
      (c) => {
        if (this.claims.get(sessionId) !== c) return;
        this.claims.delete(sessionId);
        this.next(sessionId);
      },
      waited,
    );
    this.claims.set(sessionId, claim);
    return claim;
  }

  // The turn ended: the first in line holds it now (before anyone else can ask).
  private next(sessionId: string): void {
    const line = this.lines.get(sessionId);
    const first = line?.shift();
    if (line?.length === 0) this.lines.delete(sessionId);
    if (first) first.grant(this.grant(sessionId, first.id));
  }

  /**
   * Claims the session's turn, or — when a turn holds it here and `wait` is given — a place in
   * its line (refused over `wait.max`); refused while another node runs the session's turn.
   */
  claimOrWait(
    sessionId: string,
    runsOn: string | undefined,
    wait: WaitRequest,
  ): TurnClaim | TurnWaiter {
    if (runsOn !== undefined) throw turnRunning(sessionId, runsOn);
    const claim = this.tryClaim(sessionId);
    if (claim) return claim;
    const line = this.lines.get(sessionId) ?? [];
    if (line.length >= wait.max)
      throw refusal(
        "limit",
        `session ${sessionId} has ${line.length} prompts queued; the limit is ${wait.max} (serve.maxQueuedPrompts): wait for one to run, or revoke one`,
        { retryable: true },
      );
    this.lines.set(sessionId, line);
    return this.waitIn(sessionId, line, wait.id);
  }

  // A place at the end of the session's line.
  private waitIn(sessionId: string, line: Waiting[], id: string): TurnWaiter {
    let grant!: (claim: TurnClaim) => void;
    let fail!: (why: Error) => void;
    const claimed = new Promise<TurnClaim>((resolve, reject) => {
      grant = resolve;
      fail = reject;
    });
    claimed.catch(() => undefined);
    const place: Waiting = { id, grant, fail };
    line.push(place);
    return {
      id,
      sessionId,
      claimed,
      leave: (why) => {
        const at = line.indexOf(place);
        if (at < 0) return false;
        line.splice(at, 1);
        if (line.length === 0 && this.lines.get(sessionId) === line)
          this.lines.delete(sessionId);
        place.fail(why);
        return true;
      },
    };
  }

  /** The line ids waiting for the session's turn, first in line first. */
  waiting(sessionId: string): string[] {
    return (this.lines.get(sessionId) ?? []).map((w) => w.id);
  }

  /** Claims the session's turn, or refuses: a turn holds it here, or `runsOn` (another node)
   *  runs the session's turn — one more reason it is busy. */
  claim(sessionId: string, runsOn?: string): TurnClaim {
    if (runsOn !== undefined) throw turnRunning(sessionId, runsOn);
    const claim = this.tryClaim(sessionId);
    if (!claim) throw turnRunning(sessionId);
    return claim;
  }

  // Claims the session's turn after cancelling the one running (limits.busyPrompt "cancel"):
  // the newest prompt wins, each one before it ends cancelled.
  async claimCancelling(sessionId: string): Promise<TurnClaim> {
    for (;;) {
      const claim = this.tryClaim(sessionId);
      if (claim) return claim;
      const holder = this.claims.get(sessionId)!;
      holder.cancel();
      await holder.done;
    }
  }

  /** The claim on the session's turn, while one holds it. */
  claimOf(sessionId: string): TurnClaim | undefined {
    return this.claims.get(sessionId);
  }

  // Registers a prompt as soon as it arrives, so a cancel wins at every point of its life
  // (its checks, the agent session's restoration, the turn).
  cancelScope(sessionId: string, signal: AbortSignal): CancelScope {
    const controller = new AbortController();
    const set = this.scopes.get(sessionId) ?? new Set();
    this.scopes.set(sessionId, set.add(controller));
    return {
      signal: AbortSignal.any([signal, controller.signal]),
      release: () => {
        set.delete(controller);
        if (set.size === 0 && this.scopes.get(sessionId) === set)
          this.scopes.delete(sessionId);
      },
    };
  }

  // session/cancel: every prompt under way in the session ends cancelled, and the turn holding
  // it (an agent's turn or a session command) is cancelled.
  cancel(sessionId: string): void {
    for (const controller of this.scopes.get(sessionId) ?? [])
      controller.abort();
    this.claims.get(sessionId)?.cancel();
  }
}

// A claim whose release tells `forget` and resolves `done` once.
function newClaim(
  sessionId: string,
  forget: (claim: TurnClaim) => void,
  waited?: string,
): TurnClaim {
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  const stop = new AbortController();
  const claim: TurnClaim = {
    sessionId,
    ...(waited !== undefined ? { waited } : {}),
    done,
    cancelled: false,
    signal: stop.signal,
    cancel: () => {
      claim.cancelled = true;
      stop.abort();
      claim.turn?.cancel();
    },
    release: () => {
      forget(claim);
      resolve();
    },
  };
  return claim;
}
