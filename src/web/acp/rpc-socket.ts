// The page's JSON-RPC 2.0 over one WebSocket (one message per text frame, as the hub's ACP
// endpoint speaks it): requests with their answers, notifications both ways, and the hub's
// requests to the page answered by its handlers. Small and without schema checks, so the page
// starts quickly; what the messages mean (ACP) is the store's business.

export type Params = Record<string, unknown>;

/** An error the other side answered a request with. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

/** What the page does with the hub's messages that are not answers. */
export interface RpcHandlers {
  notification(method: string, params: Params): void;
  /** A request from the hub; the signal aborts when the hub cancels it ($/cancel_request). */
  request(
    method: string,
    params: Params,
    signal: AbortSignal,
  ): Promise<unknown>;
}

interface Waiting {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

type Message = {
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
};

const CANCEL = "$/cancel_request";
const asParams = (p: unknown): Params =>
  p && typeof p === "object" ? (p as Params) : {};

export class RpcSocket {
  /** Settles when the socket has closed (never rejects). */
  readonly closed: Promise<void>;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private readonly incoming = new Map<unknown, AbortController>();
  private handlers?: RpcHandlers;
  /** The hub's requests and notifications that came before the handlers (kept in order). */
  private held: Message[] = [];

  private constructor(private readonly ws: WebSocket) {
    this.closed = new Promise((done) =>
      ws.addEventListener("close", () => {
        this.failAll();
        done();
      }),
    );
    ws.addEventListener("message", (e) => this.receive(e.data));
  }

  /** Dials the URL; resolves once open, rejects when it cannot be opened. */
  static open(url: string): Promise<RpcSocket> {
    const ws = new WebSocket(url);
    const socket = new RpcSocket(ws);
    return new Promise((resolve, reject) => {
      const failed = () =>
        reject(new Error(`the hub's WebSocket (${url}) could not be opened`));
      ws.addEventListener("open", () => resolve(socket));
      ws.addEventListener("error", failed);
      ws.addEventListener("close", failed);
    });
  }

  /** Handles what the hub sent and sends from now on (what came before first). */
  attach(handlers: RpcHandlers): void {
    this.handlers = handlers;
    const held = this.held;
    this.held = [];
    for (const m of held) this.dispatch(m);
  }

  request<T>(method: string, params: Params): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      if (this.ws.readyState !== WebSocket.OPEN)
        return reject(new Error("the connection to the hub is closed"));
      this.waiting.set(id, {
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method: string, params: Params): Promise<void> {
    if (this.ws.readyState !== WebSocket.OPEN)
      return Promise.reject(new Error("the connection to the hub is closed"));
    this.send({ jsonrpc: "2.0", method, params });
    return Promise.resolve();
  }

  close(): void {
    this.ws.close();
  }

  private send(message: object): void {
    this.ws.send(JSON.stringify(message));
  }

  // One frame from the hub: an answer settles its request; anything else goes to the handlers.
  private receive(data: unknown): void {
    let m: Message;
    try {
      m = JSON.parse(String(data)) as Message;
    } catch {
      return;
    }
    if (!m || typeof m !== "object" || Array.isArray(m)) return;
    if (m.method === undefined) return this.settle(m);
    if (m.method === CANCEL && m.id === undefined)
      this.incoming.get(asParams(m.params)["requestId"])?.abort();
    if (this.handlers) this.dispatch(m);
    else this.held.push(m);
  }

  private settle(m: Message): void {
    const w = typeof m.id === "number" ? this.waiting.get(m.id) : undefined;
    if (!w) return;
    this.waiting.delete(m.id as number);
    if (!m.error) return w.resolve(m.result);
    const { code, message, data } = m.error;
    w.reject(new RpcError(Number(code), String(message ?? "error"), data));
  }

  // A notification or a request from the hub (a request gets its handler's answer, or an error).
  private dispatch(m: Message): void {
    const params = asParams(m.params);
    const method = String(m.method);
    if (m.id === undefined) return this.handlers!.notification(method, params);
    const abort = new AbortController();
    this.incoming.set(m.id, abort);
    void this.handlers!.request(method, params, abort.signal).then(
      (result) => this.answer({ id: m.id, result: result ?? null }),
      (error: unknown) =>
        this.answer({
          id: m.id,
          error: {
            code: error instanceof RpcError ? error.code : -32603,
            message: error instanceof Error ? error.message : String(error),
          },
        }),
    );
  }

  private answer(response: Pick<Message, "id" | "result" | "error">): void {
    this.incoming.delete(response.id);
    if (this.ws.readyState === WebSocket.OPEN)
      this.send({ jsonrpc: "2.0", ...response });
  }

  // The socket closed: every request still waiting fails, every question asked is withdrawn.
  private failAll(): void {
    for (const w of this.waiting.values())
      w.reject(new Error("the connection to the hub closed"));
    this.waiting.clear();
    for (const a of this.incoming.values()) a.abort();
    this.incoming.clear();
  }
}
