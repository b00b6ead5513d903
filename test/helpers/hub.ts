// Runs the real `acphub serve` as a subprocess (port 0, 127.0.0.1) and connects the SDK's own
// WebSocket and Streamable HTTP clients to it, keeping every raw notification they receive
// (the SDK's typed client would drop unknown update variants before a handler saw them).
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import {
  client,
  type ClientContext,
  type Stream,
} from "@agentclientprotocol/sdk";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import WebSocket from "ws";
import { mockConfig } from "./editor.js";
import { CLI, tempDir } from "./mock.js";
import { trustingFetch, trustingWebSocket } from "./tls.js";

export interface RunningHub {
  url: string;
  acpUrl: string;
  pid: number;
  token: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts `acphub serve --port 0 --json` in `home`; resolves once it listens. */
export async function startHub(
  home: string,
  args: string[] = [],
  env: Record<string, string> = {},
  /** The hub's working folder (default: the test's). */
  cwd?: string,
): Promise<RunningHub> {
  const child = spawn(
    process.execPath,
    [CLI, "serve", "--port", "0", "--json", ...args],
    {
      ...(cwd ? { cwd } : {}),
      env: {
        PATH: process.env["PATH"] ?? "",
        // A home of its own: $HOME (and the folders holding it) is never a session folder,
        // and the tests open sessions in the hub's home folder.
        HOME: tempDir("acphub-userhome-"),
        // Its temp folders (a sandboxed agent's) go with the test's: tests end hubs by SIGKILL.
        TMPDIR: tempDir("acphub-hub-tmp-"),
        ACPHUB_HOME: home,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => resolve(code)),
  );
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    void exited.then((code) =>
      reject(new Error(`acphub serve exited (${code}): ${stderr}`)),
    );
  });
  stdout = `${first}\n`;
  lines.on("line", (l) => (stdout += `${l}\n`));
  const { url, pid } = JSON.parse(first) as { url: string; pid: number };
  const token =
    env["ACPHUB_TOKEN"] ??
    readFileSync(join(home, "serve-token"), "utf8").trim();
  return {
    url,
    acpUrl: `${url}/acp`,
    pid,
    token,
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
  };
}

export interface Raw {
  method: string;
  params: Record<string, unknown>;
}

export interface HubTestClient {
  agent: ClientContext;
  /** Every notification received, raw, in order. */
  notifications: Raw[];
  updates: (sessionId?: string) => Record<string, unknown>[];
  close(): void;
  closed: Promise<void>;
}

export type Transport = "ws" | "http";

// Passes every message on, keeping the notifications.
function tap(stream: Stream, into: Raw[]): Stream {
  const readable = stream.readable.pipeThrough(
    new TransformStream({
      transform(message, controller) {
        const m = message as {
          method?: string;
          id?: unknown;
          params?: unknown;
        };
        if (m.method && m.id === undefined)
          into.push({
            method: m.method,
            params: m.params as Record<string, unknown>,
          });
        controller.enqueue(message);
      },
    }),
  );
  return { readable, writable: stream.writable };
}

// A WebSocket class whose socket closed while still connecting (a test's cleanup) does not
// raise an uncaught "closed before the connection was established": ws emits that as an
// 'error' event, which the SDK's transport may not be listening for yet.
function quiet(Base: typeof WebSocket): typeof WebSocket {
  return class extends Base {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      this.on("error", () => undefined);
    }
  } as typeof WebSocket;
}

/** An SDK client of the hub over WebSocket or Streamable HTTP. */
export function connectClient(
  hub: { acpUrl: string; token: string; ca?: string },
  transport: Transport,
  onRequest?: (
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ) => unknown,
): HubTestClient {
  const headers = { Authorization: `Bearer ${hub.token}` };
  const stream =
    transport === "http"
      ? createHttpStream(hub.acpUrl, {
          headers,
          ...(hub.ca ? { fetch: trustingFetch(hub.ca) } : {}),
        })
      : createWebSocketStream(hub.acpUrl.replace(/^http/, "ws"), {
          WebSocket: quiet(
            hub.ca
              ? (trustingWebSocket(hub.ca) as typeof WebSocket)
              : WebSocket,
          ) as never,
          headers,
        });
  const notifications: Raw[] = [];
  const app = client({ name: "hub-test" })
    .onNotification(
      "session/update",
      (p: unknown) => p,
      () => undefined,
    )
    .onNotification("*", () => undefined)
    .onRequest("*", ({ method, params, signal }) => {
      if (!onRequest) throw new Error(`unexpected request ${method}`);
      return onRequest(method, params as Record<string, unknown>, signal);
    });
  const connection = app.connect(tap(stream, notifications));
  return {
    agent: connection.agent,
    notifications,
    updates: (sessionId) =>
      notifications
        .filter(
          (n) =>
            n.method === "session/update" &&
            (sessionId === undefined || n.params["sessionId"] === sessionId),
        )
        .map((n) => n.params),
    close: () => connection.close(),
    closed: connection.closed.catch(() => undefined),
  };
}

/** The ledger sequence number the hub stamped on an update. */
export function seqOf(update: Record<string, unknown>): number {
  const meta = update["_meta"] as { acphub?: { seq?: number } } | undefined;
  return meta?.acphub?.seq ?? -1;
}

/** Pids of live processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
      if (cmd.includes(marker) && state !== "Z") pids.push(Number(entry));
    } catch {
      continue;
    }
  }
  return pids;
}

/** Hubs and clients started in a test, and stopped after it. */
export function hubFixture() {
  const hubs: RunningHub[] = [];
  const clients: HubTestClient[] = [];
  return {
    // A hub over the mock agent; `marker` is in every agent's command line.
    async start(
      serve: Record<string, unknown> = {},
      flags: string[] = [],
      serveArgs: (home: string) => string[] = () => [],
      /** More of the config; its `agents` are offered beside the mock. */
      config: Record<string, unknown> = {},
    ) {
      const home = tempDir();
      const marker = join(home, "agent-marker.json");
      const mockFlags = ["--sessions-file", marker, ...flags];
      const mock = {
        command: process.execPath,
        args: [CLI, "mock-agent", ...mockFlags],
      };
      const agents = { mock, ...(config["agents"] as object | undefined) };
      mockConfig(home, mockFlags, { ...config, agents, serve });
      const h = await startHub(home, serveArgs(home));
      hubs.push(h);
      return { h, home, marker };
    },
    connect(
      h: { acpUrl: string; token: string; ca?: string },
      transport: Transport,
      onRequest?: Parameters<typeof connectClient>[2],
    ): HubTestClient {
      const c = connectClient(h, transport, onRequest);
      clients.push(c);
      return c;
    },
    async cleanup() {
      for (const c of clients.splice(0)) c.close();
      for (const h of hubs.splice(0)) {
        h.child.kill("SIGKILL");
        await h.exited;
      }
    },
  };
}

export const INIT = { protocolVersion: 1, clientCapabilities: {} };

/** initialize, then session/new in `cwd`; the hub's session id. */
export async function openSession(
  c: HubTestClient,
  cwd: string,
  meta?: unknown,
): Promise<string> {
  await c.agent.request("initialize", INIT);
  const { sessionId } = await c.agent.request<{ sessionId: string }>(
    "session/new",
    { cwd, mcpServers: [], ...(meta ? { _meta: meta } : {}) },
  );
  return sessionId;
}

/** Answers a permission request with its allow_once option. */
export function allowOnce(_method: string, params: Record<string, unknown>) {
  const options = params["options"] as { optionId: string; kind: string }[];
  const allow = options.find((o) => o.kind === "allow_once")!;
  return { outcome: { outcome: "selected", optionId: allow.optionId } };
}

/** How long `until` polls before failing: under the tests' 90 s timeout, so that a wait that
 * never ends fails naming what it waited for, not as a bare "Test timed out". */
export const UNTIL_MS = 60_000;

// Waits for a condition, polling on a short interval; fails with the condition's source after
// `timeoutMs`.
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = UNTIL_MS,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() >= end)
      throw new Error(
        `until: not true after ${timeoutMs / 1000} s: ${String(check).replace(/\s+/g, " ").slice(0, 300)}`,
      );
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const text = (t: string) => [{ type: "text", text: t }];
