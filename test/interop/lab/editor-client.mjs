// The lab's editor: an SDK client on an agent's stdio (a real agent directly, or `acphub acp`).
// It records every frame with a timestamp, answers permission questions like a scripted user
// (allow once, by kind, with the agent's own option id) and counts them per tool call, and serves
// fs/terminal itself only when it advertised them.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, RequestError } from "@agentclientprotocol/sdk";
import { editorHost } from "./editor-host.mjs";

/**
 * @typedef {{ at: number, dir: "in" | "out", msg: any }} Frame
 * @typedef {{ command: string, args: string[], env: Record<string, string>, cwd?: string }} Launch
 * @typedef {{ fs: boolean, terminal: boolean, answer?: "allow" | "reject" }} EditorOptions
 */

// The option to pick for a permission question: the agent's own id for "allow once" (or reject).
export function chooseOption(options, answer = "allow") {
  const order =
    answer === "allow"
      ? ["allow_once", "allow_always"]
      : ["reject_once", "reject_always"];
  for (const kind of order) {
    const o = options.find((x) => x.kind === kind);
    if (o) return { outcome: "selected", optionId: o.optionId };
  }
  return { outcome: "cancelled" };
}

// Copies a web stream of messages, noting each one in `frames` as it passes.
function tap(readable, frames, dir) {
  return readable.pipeThrough(
    new TransformStream({
      transform(msg, c) {
        frames.push({ at: Date.now(), dir, msg });
        c.enqueue(msg);
      },
    }),
  );
}

/** Spawns the process and connects the editor to it. @param {Launch} launch @param {EditorOptions} opts */
export function startEditorOn(launch, opts) {
  const child = spawn(launch.command, launch.args, {
    env: launch.env,
    cwd: launch.cwd,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  child.stdin.on("error", () => undefined);
  let stderr = "";
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-20000)));
  const exited = new Promise((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  /** @type {Frame[]} */
  const frames = [];
  const raw = ndJsonStream(
    Writable.toWeb(child.stdin),
    Readable.toWeb(child.stdout),
    { maxMessageBytes: 64 * 1024 * 1024 },
  );
  const outgoing = new TransformStream({
    transform(msg, c) {
      frames.push({ at: Date.now(), dir: "out", msg });
      c.enqueue(msg);
    },
  });
  void outgoing.readable.pipeTo(raw.writable).catch(() => undefined);
  const stream = {
    readable: tap(raw.readable, frames, "in"),
    writable: outgoing.writable,
  };
  /** permission questions, each with its toolCallId */
  const permissions = [];
  const host = opts.fs || opts.terminal ? editorHost() : {};
  const app = client({ name: "acphub-interop-editor" })
    .onNotification("*", () => undefined)
    .onRequest("*", async ({ method, params }) => {
      if (method === "session/request_permission") {
        permissions.push(params);
        return { outcome: chooseOption(params.options, opts.answer) };
      }
      const handler = host[method];
      if (!handler) throw RequestError.methodNotFound(method);
      try {
        return await handler(params);
      } catch (error) {
        if (error?.code === -32002)
          throw RequestError.resourceNotFound(params.path);
        throw error;
      }
    });
  const connection = app.connect(stream);
  const clientCapabilities = {
    fs: { readTextFile: opts.fs, writeTextFile: opts.fs },
    terminal: opts.terminal,
  };
  return {
    agent: connection.agent,
    child,
    frames,
    permissions,
    clientCapabilities,
    stderr: () => stderr,
    exited,
    /** session/update params received, in order */
    updates: () =>
      frames
        .filter((f) => f.dir === "in" && f.msg.method === "session/update")
        .map((f) => f.msg.params),
    /** requests the agent sent to the editor */
    requests: () =>
      frames
        .filter((f) => f.dir === "in" && f.msg.method && f.msg.id !== undefined)
        .map((f) => f.msg),
    kill: () => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        /* gone */
      }
    },
    /** Ends stdin (a polite peer shuts down and closes its agents), then kills after `graceMs`. */
    close: async (graceMs = 5000) => {
      child.stdin.end();
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          /* gone */
        }
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
