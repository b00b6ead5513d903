// Turn helpers for the lab's SDK editor: prompt, collect what streamed, cancel a slow turn.
import { afterEach } from "vitest";
import { startEditorOn } from "./editor-client.mjs";
import { acphubArgv, openLab, type Lab } from "./lab.js";
import type { AgentName } from "./versions.mjs";

export type LabEditor = ReturnType<typeof startEditorOn>;

/** Starts `acphub acp` (with `args`, e.g. `--hub URL`) for the lab's agent with an SDK editor
 *  on its stdio (offering fs and terminal when `caps`). */
function startAcphubEditor(l: Lab, caps: boolean, args: string[]): LabEditor {
  return startEditorOn(
    {
      command: process.execPath,
      args: acphubArgv("acp", ...args),
      env: l.acphubEnv,
      cwd: l.work,
    },
    { fs: caps, terminal: caps },
  );
}
type Update = Record<string, unknown>;

/**
 * A test file's lab runs: each test opens one lab and starts editors on it; after the test they
 * are stopped. `editors` keeps the last test's editors (a failed test's dump reads them).
 */
export function labRuns() {
  let lab: Lab | undefined;
  const editors: LabEditor[] = [];
  afterEach(async () => {
    await Promise.all(editors.map((e) => e.close()));
    await lab?.close();
    lab = undefined;
  });
  return {
    editors,
    async open(agent: AgentName, opts: { tee?: boolean } = {}): Promise<Lab> {
      editors.length = 0;
      lab = await openLab(agent, opts);
      return lab;
    },
    /** `acphub acp` on the lab, stopped after the test. */
    acphub(l: Lab, caps: boolean, args: string[] = []): LabEditor {
      const e = startAcphubEditor(l, caps, args);
      editors.push(e);
      return e;
    },
  };
}

/** The text of the agent_message_chunk updates among `updates`. */
export function messageText(updates: Update[]): string {
  return messageChunks(updates).join("");
}

/** The agent_message_chunk texts among `updates`, one per chunk. */
export function messageChunks(updates: Update[]): string[] {
  return updates
    .map(
      (u) =>
        u["update"] as
          { sessionUpdate?: string; content?: { text?: string } } | undefined,
    )
    .filter((u) => u?.sessionUpdate === "agent_message_chunk")
    .map((u) => u?.content?.text ?? "");
}

/** Waits until `check` holds, polling; false when it never did within `timeoutMs`. */
export async function until(
  check: () => boolean,
  timeoutMs = 10_000,
): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

/** One prompt; the response and the updates that arrived while it ran. */
export async function promptTurn(
  ed: LabEditor,
  sessionId: string,
  text: string,
) {
  const before = ed.updates().length;
  const response = await ed.agent.request<{ stopReason: string }>(
    "session/prompt",
    {
      sessionId,
      prompt: [{ type: "text", text }],
    },
  );
  return { response, updates: ed.updates().slice(before) };
}

/** Starts a slow turn, cancels it once text streams, and returns the prompt's response. */
export async function cancelledTurn(
  ed: LabEditor,
  sessionId: string,
  text: string,
) {
  const before = ed.updates().length;
  const pending = ed.agent.request<{ stopReason: string }>("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text }],
  });
  const streaming = await until(
    () => messageText(ed.updates().slice(before)).includes("tick"),
    30_000,
  );
  await ed.agent.notify("session/cancel", { sessionId });
  const response = await pending;
  return { response, streaming };
}

/** Permission questions per tool call id. */
export function questionsPerToolCall(
  permissions: Update[],
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of permissions) {
    const id = String(
      (p["toolCall"] as { toolCallId?: string } | undefined)?.toolCallId,
    );
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/** An update without its session id, for comparing both sides of the hop. */
export function withoutSessionId(params: Update): Update {
  const { sessionId: _drop, ...rest } = params;
  return rest;
}
