// Shorthands for tests that drive `acphub acp` as an editor: editors killed and checked after
// each test, prompts as text, and the agent's text of a turn.
import { afterEach, expect } from "vitest";
import {
  editorTracker,
  onlyProtocolOnStdout,
  startEditor,
  type EditorOptions,
  type TestEditor,
} from "./editor.js";

export type StartEditor = (home: string, options?: EditorOptions) => TestEditor;

/** Starts editors that are checked (only protocol on stdout) and killed after each test. */
export function useEditors(): StartEditor {
  const editors = editorTracker();
  afterEach(() =>
    editors.cleanup((e) => expect(onlyProtocolOnStdout(e.stdout())).toBe(true)),
  );
  return (home, options) => editors.track(startEditor(home, options));
}

/** Kills `first` (as a crash would) and starts a second acphub on the same ledger, initialized. */
export async function restart(
  first: TestEditor,
  home: string,
  start: StartEditor,
): Promise<TestEditor> {
  first.child.kill("SIGKILL");
  await first.exited;
  const second = start(home);
  await second.agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: {},
  });
  return second;
}

/** A prompt of one text block. */
export const text = (t: string) => [{ type: "text", text: t }];

type Update = { sessionUpdate: string; content?: { text?: string } };

/** The text of the `kind` chunks sent since update number `from` (of one session, if given). */
export function chunkText(
  e: TestEditor,
  from: number,
  sessionId?: string,
  kind = "agent_message_chunk",
): string {
  return e
    .updates()
    .slice(from)
    .filter((u) => sessionId === undefined || u["sessionId"] === sessionId)
    .map((u) => u["update"] as Update)
    .filter((u) => u.sessionUpdate === kind)
    .map((u) => u.content?.text ?? "")
    .join("");
}

/** Sends one prompt and returns the agent's text of that turn. */
export async function turn(e: TestEditor, sessionId: string, prompt: string) {
  const from = e.updates().length;
  await e.agent.request("session/prompt", { sessionId, prompt: text(prompt) });
  return chunkText(e, from, sessionId);
}
