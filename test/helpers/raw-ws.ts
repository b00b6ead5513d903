// A hub client that speaks raw JSON-RPC frames over a WebSocket (no SDK in between): what an
// attacker or an odd client sends is exactly what the hub receives.
import WebSocket from "ws";
import { until } from "./hub.js";

type Message = Record<string, unknown>;

export interface RawClient {
  /** Every message received, in order. */
  got: Message[];
  /** Sends a request and resolves with its whole answer (`result` or `error`). */
  call(method: string, params: unknown): Promise<Message>;
  /** Sends a notification. */
  notify(method: string, params: unknown): void;
  close(): void;
}

/** Opens a WebSocket to the hub with a bearer token; resolves once it is open. */
export async function rawClient(
  acpUrl: string,
  token: string,
  /** Answers the hub's requests (permission questions); none: an error answer. */
  answer?: (m: Message) => unknown,
): Promise<RawClient> {
  const ws = new WebSocket(acpUrl.replace(/^http/, "ws"), {
    headers: { Authorization: `Bearer ${token}` },
  });
  ws.on("error", () => undefined);
  const got: Message[] = [];
  ws.on("message", (data: Buffer) => {
    const m = JSON.parse(data.toString()) as Message;
    got.push(m);
    if (typeof m["method"] === "string" && m["id"] !== undefined) {
      const result = answer?.(m);
      ws.send(
        JSON.stringify(
          result === undefined
            ? {
                jsonrpc: "2.0",
                id: m["id"],
                error: { code: -32601, message: "no" },
              }
            : { jsonrpc: "2.0", id: m["id"], result },
        ),
      );
    }
  });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("unexpected-response", (_req, res) =>
      reject(new Error(`upgrade refused: ${res.statusCode}`)),
    );
  });
  let next = 1000;
  const answerTo = (id: number) =>
    got.find((m) => m["id"] === id && m["method"] === undefined);
  return {
    got,
    async call(method, params) {
      const id = next++;
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      await until(() => answerTo(id) !== undefined);
      return answerTo(id)!;
    },
    notify(method, params) {
      ws.send(JSON.stringify({ jsonrpc: "2.0", method, params }));
    },
    close: () => ws.close(),
  };
}
