// A raw JSON-RPC client of `acphub serve` over WebSocket: frames as the hub writes them, with
// no SDK in between (what an attacker sends and sees). Requests from the hub (a permission
// question, …) are answered by `onRequest`, else refused.
import WebSocket from "ws";
import { until } from "./hub.js";

export type Frame = Record<string, unknown>;

export interface RawClient {
  /** Every frame received, in order. */
  frames: Frame[];
  /** Sends a request; resolves with its whole answer frame (result or error). */
  call(method: string, params: unknown): Promise<Frame>;
  /** Sends a notification. */
  notify(method: string, params: unknown): void;
  /** The params of every session/update received for a session. */
  updates(sessionId: string): Frame[];
  close(): void;
}

// Connects with a bearer token; initialize is left to the caller.
export async function rawClient(
  acpUrl: string,
  token: string,
  onRequest?: (method: string, params: Frame) => unknown,
): Promise<RawClient> {
  const ws = new WebSocket(acpUrl.replace(/^http/, "ws"), {
    headers: { Authorization: `Bearer ${token}` },
  });
  ws.on("error", () => undefined);
  const frames: Frame[] = [];
  ws.on("message", (data: Buffer) => {
    const m = JSON.parse(data.toString()) as Frame;
    frames.push(m);
    if (typeof m["method"] !== "string" || m["id"] === undefined) return;
    const result = onRequest?.(m["method"], (m["params"] ?? {}) as Frame);
    ws.send(
      JSON.stringify(
        result === undefined
          ? {
              jsonrpc: "2.0",
              id: m["id"],
              error: { code: -32601, message: "not here" },
            }
          : { jsonrpc: "2.0", id: m["id"], result },
      ),
    );
  });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("unexpected-response", (_req, res) =>
      reject(new Error(`upgrade refused: ${res.statusCode}`)),
    );
  });
  let next = 1000;
  return {
    frames,
    async call(method, params) {
      const id = next++;
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      const answer = () =>
        frames.find((f) => f["id"] === id && f["method"] === undefined);
      await until(() => answer() !== undefined);
      return answer()!;
    },
    notify(method, params) {
      ws.send(JSON.stringify({ jsonrpc: "2.0", method, params }));
    },
    updates: (sessionId) =>
      frames
        .filter((f) => f["method"] === "session/update")
        .map((f) => f["params"] as Frame)
        .filter((p) => p["sessionId"] === sessionId),
    close: () => ws.close(),
  };
}

/** The result of an answer frame, or a thrown error with its code and message. */
export function resultOf<T = Frame>(answer: Frame): T {
  const error = answer["error"] as
    { code: number; message: string } | undefined;
  if (error)
    throw Object.assign(new Error(error.message), { code: error.code });
  return answer["result"] as T;
}

/** The error of an answer frame ({code: 0} when it succeeded). */
export function errorOf(answer: Frame): { code: number; message: string } {
  return (
    (answer["error"] as { code: number; message: string } | undefined) ?? {
      code: 0,
      message: JSON.stringify(answer["result"]),
    }
  );
}
