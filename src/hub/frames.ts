// A notification the hub sends, as JSON-RPC bytes built once for every client that receives it.
// A relayed update used to be serialized again for each client (and validated on its way through
// the SDK); a client that writes frames itself (a WebSocket) now writes these bytes as they are.
type Params = Record<string, unknown>;

/** One notification to one or more hub clients: its params, and its whole frame on demand. */
export class Note {
  private built: Buffer | undefined;
  private made: Params | undefined;

  constructor(
    readonly method: string,
    /** The params, or how to make them when a client asks (one that writes frames never does). */
    private readonly make: Params | (() => Params),
    /** The frame's JSON text when it is known cheaper than by serializing the params. */
    private readonly text?: string,
  ) {}

  get params(): Params {
    this.made ??= typeof this.make === "function" ? this.make() : this.make;
    return this.made;
  }

  /** `{"jsonrpc":"2.0","method":…,"params":…}` as UTF-8, built on first use, then shared. */
  bytes(): Buffer {
    this.built ??= Buffer.from(
      this.text ??
        JSON.stringify({
          jsonrpc: "2.0",
          method: this.method,
          params: this.params,
        }),
    );
    return this.built;
  }
}

/**
 * The frame of a stored session/update stamped with its seq, from the stored JSON text of its
 * params without the session id (`{"update":…}`, exactly JSON.stringify of them): the same text
 * JSON.stringify gives for `{sessionId, …payload, _meta: {acphub: {seq}}}`. Undefined when the
 * payload has its own `_meta` (merging into it needs the object).
 */
export function stampedUpdateText(
  sessionId: string,
  stored: string,
  seq: number,
  payload: Params,
): string | undefined {
  if (payload["_meta"] !== undefined || !isSpliceable(stored)) return undefined;
  return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${JSON.stringify(sessionId)},${stored.slice(1, -1)},"_meta":{"acphub":{"seq":${seq}}}}}`;
}

// A JSON object's text with at least one member, braces at its very ends (no whitespace).
function isSpliceable(text: string): boolean {
  return text.length > 2 && text[0] === "{" && text[text.length - 1] === "}";
}
