// The output of one WebSocket connection, written by acphub itself: a relayed notification is one
// text frame of bytes built once for every client (hub/frames.ts), handed to the socket at once.
// Through the SDK it was serialized again per client, passed through a web stream, a router, a
// mailbox and a pump (several promises each), and stringified there. The SDK's own messages
// (answers, requests to the client) are serialized here too, when the SDK hands them over, so
// everything a client is sent leaves in the order it was written. The SDK still sees a small
// stand-in of each of its messages (id, method, session id), so that its routing and pending
// tables keep working; the socket drops the stand-ins when the SDK's pump sends them.
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import type { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import type { WebSocket } from "ws";
import type { Note } from "../hub/frames.js";
import type { OutboundQueue } from "./outbound-queue.js";

/** The first key of a stand-in: its JSON text starts with STAND_IN_PREFIX, a message's never does. */
const STAND_IN = "acphub:written";
const STAND_IN_PREFIX = `{"${STAND_IN}":`;
const TEXT_FRAME = { binary: false };

/** The socket's send once attached; frames written before that wait for it. */
export class SocketWire {
  private ws: WebSocket | undefined;
  private early: [Buffer | string, (() => void) | undefined][] = [];

  /** The socket the upgrade produced: its send drops the SDK's stand-ins from now on. */
  attach(ws: WebSocket): void {
    const send = ws.send.bind(ws) as (
      data: unknown,
      ...more: unknown[]
    ) => void;
    ws.send = ((data: unknown, ...more: unknown[]) => {
      if (typeof data === "string" && data.startsWith(STAND_IN_PREFIX)) return;
      send(data, ...more);
    }) as WebSocket["send"];
    this.ws = ws;
    for (const [frame, written] of this.early.splice(0))
      this.write(frame, written);
  }

  /** Writes one whole JSON-RPC message as one text frame; `written` once the socket took it
   *  (or failed to). */
  write(frame: Buffer | string, written?: () => void): void {
    const ws = this.ws;
    if (!ws) this.early.push([frame, written]);
    else ws.send(frame, TEXT_FRAME, written);
  }

  /** Writes a notification's shared frame at once (a reply written after it follows it), counted
   *  in `queue` until the socket takes it (a catch-up is not: the ledger's caps bound it). */
  writeNote(note: Note, queue?: OutboundQueue): void {
    if (!queue) this.write(note.bytes());
    else if (queue.admit()) this.write(note.bytes(), queue.add());
  }

  /** The SDK's stream for this connection, its output written here in order with the frames. */
  carry(stream: Stream): Stream {
    const inner = stream.writable.getWriter();
    const writable = new WritableStream<AnyMessage>({
      write: (message) => {
        this.write(JSON.stringify(message));
        inner.write(standIn(message) as AnyMessage).catch(() => undefined);
      },
      close: () => inner.close(),
      abort: (reason: unknown) => inner.abort(reason),
    });
    return { readable: stream.readable, writable };
  }
}

// What the SDK's router and its initialize wait read of a message: its kind, id, method, the
// session id of its params or result, and an error as it is.
function standIn(message: AnyMessage): Record<string, unknown> {
  const m = message as Record<string, unknown>;
  const out: Record<string, unknown> = { [STAND_IN]: 1, jsonrpc: "2.0" };
  if ("id" in m) out["id"] = m["id"];
  if ("method" in m) {
    out["method"] = m["method"];
    out["params"] = sessionOnly(m["params"]);
  }
  if ("result" in m) out["result"] = sessionOnly(m["result"]);
  if ("error" in m) out["error"] = m["error"];
  return out;
}

function sessionOnly(value: unknown): Record<string, unknown> {
  const id = (value as { sessionId?: unknown } | null | undefined)?.sessionId;
  return typeof id === "string" ? { sessionId: id } : {};
}

let opening: SocketWire | undefined;

/** The wire of the WebSocket connection the SDK is creating now (its agent factory is called
 *  synchronously while an upgrade is prepared); undefined for a Streamable HTTP one. */
export function openingWire(): SocketWire | undefined {
  const wire = opening;
  opening = undefined;
  return wire;
}

/** The server as the SDK's upgrade handler uses it, each new WebSocket connection given a wire. */
export function withWires(acp: AcpServer): AcpServer {
  const prepare = (): ReturnType<AcpServer["prepareWebSocketUpgrade"]> => {
    const wire = new SocketWire();
    opening = wire;
    try {
      const upgrade = acp.prepareWebSocketUpgrade();
      return {
        connectionId: upgrade.connectionId,
        accept: (socket) => {
          wire.attach(socket as WebSocket);
          upgrade.accept(socket);
        },
        reject: () => upgrade.reject(),
      };
    } finally {
      opening = undefined;
    }
  };
  return { prepareWebSocketUpgrade: prepare } as unknown as AcpServer;
}
