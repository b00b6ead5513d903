// A notification the hub sends, as JSON-RPC bytes built once for every client that receives it.
// A relayed update used to be serialized again for each client (and validated on its way through
// the SDK); a client that writes frames itself (a WebSocket) now writes these bytes as they are,
// or, for a stored update that goes to one client, its parts (its stored text, the session's
// head, its seq) with no frame made at all.
import type { StoredEvent } from "../engine/ledger-port.js";
import {
  shownUpdates,
  stamped,
  stampedText,
  updateParams,
  withSeq,
  type Shown,
  type StampedUpdate,
} from "../engine/wire-updates.js";

type Params = Record<string, unknown>;

/** One notification to one or more hub clients: its params, and its whole frame on demand. */
export class Note {
  private built: Buffer | undefined;
  private frame: Buffer | undefined;
  private made: Params | undefined;
  private text: string | undefined;

  constructor(
    readonly method: string,
    /** The params, or how to make them when a client asks (one that writes frames never does). */
    private readonly make: Params | (() => Params),
    /** A stored update stamped with its seq: its frame's text is made from these parts. */
    readonly stamp?: StampedUpdate,
    /** Whether a WebSocket writes the stamp's parts straight into its buffer (a note for one
     *  client: no frame made at all) rather than one frame made and shared (several). */
    readonly fromParts = false,
  ) {}

  get params(): Params {
    this.made ??= typeof this.make === "function" ? this.make() : this.make;
    return this.made;
  }

  /** `{"jsonrpc":"2.0","method":…,"params":…}` as UTF-8, built on first use, then shared. */
  bytes(): Buffer {
    this.built ??= Buffer.from(this.json());
    return this.built;
  }

  /** The frame's JSON text, made on first use (from the stamp's parts, else serialized). */
  json(): string {
    if (this.stamp) return (this.text ??= stampedText(this.stamp));
    return (this.text ??= JSON.stringify({
      jsonrpc: "2.0",
      method: this.method,
      params: this.params,
    }));
  }

  /** The note as one transport's whole frame (`make` of its JSON text: a WebSocket frame with
   *  its header), made by the first client of that transport that sends it, then shared. */
  framed(make: (json: string) => Buffer): Buffer {
    this.frame ??= make(this.json());
    return this.frame;
  }
}

/**
 * The note of one update a stored event shows, stamped with its seq: a stored update's frame is
 * its stored text with the session id and seq spliced in (wire-updates.ts), never serialized
 * again per client; its params are made only for a client that asks (Streamable HTTP), or are
 * the live ones (`live`: the relay's params, whose `_meta` decides whether splicing can do).
 * `clients`: how many it goes to (one writes it from its parts).
 */
export function shownNote(
  sessionId: string,
  shown: Shown,
  seq: number,
  live?: Params,
  clients = 1,
): Note {
  const stamp =
    typeof shown === "string"
      ? stamped(sessionId, shown, seq, live && live["_meta"] !== undefined)
      : undefined;
  const params = live
    ? () => withSeq(live, seq)
    : () => updateParams(sessionId, shown, seq);
  return new Note("session/update", params, stamp, clients === 1);
}

/** The notes of one stored event the hub's clients are sent (a notice as agent text; `clients`:
 *  how many); undefined for a damaged row. */
export function storedNotes(
  sessionId: string,
  event: StoredEvent,
  clients = 1,
): Note[] | undefined {
  return shownUpdates(event, false)?.map((shown) =>
    shownNote(sessionId, shown, event.seq, undefined, clients),
  );
}

/** The notes of a catch-up (what a client missed after `afterSeq`), read as stored; a damaged
 *  row is reported and left out. */
export function catchUpNotes(
  sessionId: string,
  stored: readonly StoredEvent[],
  afterSeq: number,
  onDamaged: (seq: number) => void,
): Note[] {
  const notes: Note[] = [];
  for (const event of stored) {
    if (event.seq <= afterSeq) continue;
    const some = storedNotes(sessionId, event);
    if (some) notes.push(...some);
    else onDamaged(event.seq);
  }
  return notes;
}
