// A test editor: spawns the real `acphub acp` and talks to it with an SDK client, reading
// notifications off the raw stream so unknown variants stay visible, and keeping every byte
// acphub wrote to stdout.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { client, type ClientContext } from "@agentclientprotocol/sdk";
import { ndjsonStream } from "../../src/protocol/ndjson.js";
import { CLI } from "./mock.js";

export interface Notification {
  method: string;
  params: Record<string, unknown>;
}

export interface EditorOptions {
  /** Handles requests from acphub (permission, fs, terminal, `_` methods). */
  onRequest?: (
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ) => unknown;
  args?: string[];
  env?: Record<string, string>;
  /** A command that runs acphub, e.g. bwrap with its own mounts (argv before node). */
  wrap?: string[];
  /** acphub's working folder (default: the test's). A sandboxed agent gets its mount points
   *  there, left behind when acphub is killed -9: never the repository. */
  cwd?: string;
}

export interface TestEditor {
  agent: ClientContext;
  child: ChildProcessWithoutNullStreams;
  notifications: Notification[];
  /** session/update params received, in order. */
  updates: () => Record<string, unknown>[];
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Writes an ACPHUB_HOME config whose default agent is the mock with these flags. */
export function mockConfig(
  home: string,
  flags: string[] = [],
  extra: Record<string, unknown> = {},
): void {
  const agents = {
    mock: { command: process.execPath, args: [CLI, "mock-agent", ...flags] },
  };
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({ defaultAgent: "mock", agents, ...extra }),
  );
}

export function startEditor(
  home: string,
  options: EditorOptions = {},
): TestEditor {
  const argv = [
    ...(options.wrap ?? []),
    process.execPath,
    CLI,
    "acp",
    ...(options.args ?? []),
  ];
  const child = spawn(argv[0]!, argv.slice(1), {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: {
      PATH: process.env["PATH"] ?? "",
      HOME: home,
      ACPHUB_HOME: home,
      ...options.env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.on("error", () => undefined); // acphub may close first; that is tested for
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => resolve(code)),
  );
  const notifications: Notification[] = [];
  const stream = ndjsonStream(child.stdout, child.stdin, {
    maxLineBytes: 64 * 1024 * 1024,
    intercept: (message) => {
      if (!("method" in message) || "id" in message) return false;
      // $/cancel_request is the SDK's own business: it aborts the handler's signal.
      if (message.method.startsWith("$/")) return false;
      notifications.push({
        method: message.method,
        params: message.params as Record<string, unknown>,
      });
      return true;
    },
  });
  const app = client({ name: "test-editor" }).onRequest(
    "*",
    ({ method, params, signal }) => {
      if (!options.onRequest) throw new Error(`unexpected request ${method}`);
      return options.onRequest(
        method,
        params as Record<string, unknown>,
        signal,
      );
    },
  );
  const connection = app.connect(stream);
  return {
    agent: connection.agent,
    child,
    notifications,
    updates: () =>
      notifications
        .filter((n) => n.method === "session/update")
        .map((n) => n.params),
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
  };
}

// Every line acphub wrote to stdout must be a JSON-RPC 2.0 message.
export function onlyProtocolOnStdout(stdout: string): boolean {
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .every((line) => {
      try {
        return (JSON.parse(line) as { jsonrpc?: string }).jsonrpc === "2.0";
      } catch {
        return false;
      }
    });
}

export const INIT = { protocolVersion: 1, clientCapabilities: {} };

/** initialize (with these client capabilities), then session/new in `cwd`; the session id. */
export async function openSession(
  e: TestEditor,
  cwd: string,
  clientCapabilities: Record<string, unknown> = {},
): Promise<string> {
  await e.agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities,
  });
  const { sessionId } = await e.agent.request<{ sessionId: string }>(
    "session/new",
    { cwd, mcpServers: [] },
  );
  return sessionId;
}

/** Editors started in a test, checked (only protocol on stdout) and killed after it. */
export function editorTracker() {
  const editors: TestEditor[] = [];
  return {
    track(e: TestEditor): TestEditor {
      editors.push(e);
      return e;
    },
    async cleanup(check: (e: TestEditor) => void): Promise<void> {
      for (const e of editors.splice(0)) {
        check(e);
        e.child.kill("SIGKILL");
        await e.exited;
      }
    },
  };
}

/** A session opened by one `acphub acp` that was then killed -9, and a second one, initialized. */
export async function afterKill(
  track: (e: TestEditor) => TestEditor,
  home: string,
): Promise<{ second: TestEditor; sessionId: string }> {
  const first = track(startEditor(home));
  const sessionId = await openSession(first, home);
  first.child.kill("SIGKILL");
  await first.exited;
  const second = track(startEditor(home));
  await second.agent.request("initialize", INIT);
  return { second, sessionId };
}
