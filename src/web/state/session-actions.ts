// The chores of a session done from the page: rename (session/set_title), fork, delete, and
// export as Markdown (from what the page shows) or JSON (the hub's replay of its updates).
import { messageOf, type HubStore } from "./hub-store.js";
import type { Params, SessionModel } from "./session-model.js";
import { HUB_METHOD, type ReplayAnswer } from "../../shared/hub-extension.js";

// Renames the open session; the hub stores the title and tells every list.
export async function rename(store: HubStore, title: string): Promise<void> {
  const m = store.model;
  if (!m || !title.trim()) return;
  await store.request("session/set_title", {
    sessionId: m.sessionId,
    title: title.trim(),
  });
  m.title = title.trim();
  store.titles.set(m.sessionId, m.title);
  store.changed();
}

// Queues a prompt behind the running turn (issue 37): it runs when the turns before it ended,
// and shows in the queued list until then (the hub tells every page, this one included).
export async function queuePrompt(
  store: HubStore,
  text: string,
): Promise<void> {
  const m = store.model;
  if (!m || !text.trim()) return;
  try {
    await store.request("session/prompt", {
      sessionId: m.sessionId,
      prompt: [{ type: "text", text }],
      _meta: { acphub: { queue: true, idempotencyKey: crypto.randomUUID() } },
    });
  } catch (error) {
    store.error = messageOf(error);
    store.changed();
  }
}

// Takes a queued prompt out of the line before it runs (its author, the owner or an admin).
export async function revokeQueued(
  store: HubStore,
  queueId: string,
): Promise<void> {
  const m = store.model;
  if (!m) return;
  try {
    await store.request(HUB_METHOD.queueRevoke, {
      sessionId: m.sessionId,
      queueId,
    });
  } catch (error) {
    store.error = messageOf(error);
    store.changed();
  }
}

// Forks the open session (a copy of its history, continued separately); resolves with its id.
export async function fork(store: HubStore): Promise<string> {
  const m = store.model!;
  const cwd = store.infos.get(m.sessionId)?.cwd ?? "/";
  const answer = await store.request<Params>("session/fork", {
    sessionId: m.sessionId,
    cwd,
    mcpServers: [],
  });
  return String(answer["sessionId"]);
}

// Deletes the open session from the hub (its ledger history too).
export async function remove(store: HubStore): Promise<void> {
  const m = store.model!;
  await store.request("session/delete", { sessionId: m.sessionId });
  store.infos.delete(m.sessionId);
}

const HEADINGS: Record<string, string> = {
  user: "You",
  agent: "Agent",
  thought: "Thinking",
  notice: "acphub",
};

/** The transcript as Markdown: each message under a heading (a prompt's: its author, if known), tool calls as one line each. */
export function toMarkdown(m: SessionModel, title: string): string {
  const parts = [`# ${title}`];
  for (const item of m.items) {
    if (item.kind === "tool") {
      const c = item.call ?? {};
      parts.push(
        `- **${String(c["kind"] ?? "tool")}** ${String(c["title"] ?? "")} (${String(c["status"] ?? "pending")})`,
      );
    } else {
      const heading = item.author ?? HEADINGS[item.kind] ?? item.kind;
      parts.push(`## ${heading}\n\n${item.text}`);
    }
  }
  return `${parts.join("\n\n")}\n`;
}

/** The session's updates as the hub recorded them (JSON, one object). */
export async function toJson(store: HubStore): Promise<string> {
  const m = store.model!;
  const replay = await store.request<ReplayAnswer>(HUB_METHOD.sessionReplay, {
    sessionId: m.sessionId,
    afterSeq: 0,
  });
  const info = store.infos.get(m.sessionId);
  return JSON.stringify(
    {
      sessionId: m.sessionId,
      title: m.title ?? info?.title,
      cwd: info?.cwd,
      agent: info?.agent,
      updates: replay["updates"],
    },
    null,
    2,
  );
}

/** Saves text as a file through the browser (no request leaves the page). */
export function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
