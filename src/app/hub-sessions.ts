// What `acphub sessions list|show --hub URL` ask of a running hub, over ACP with the hub's ids
// (the ones its page, `run --hub` and `chat --hub` show and take): its session list, every page
// of session/list, and a session's history as the hub replays it on session/load.
import { resolve } from "node:path";
import type { AppContext } from "../config/context.js";
import { DEFAULT_HUB_WAIT_MS } from "./deadline.js";
import { connectToHub, type AgentConnection } from "./hub-client.js";
import type { ShownItem } from "./sessions.js";

export interface HubSession {
  sessionId: string;
  cwd: string;
  title?: string | null;
  updatedAt?: string | null;
}

/** Pages of session/list read at most (a hub answering cursors forever still ends). */
const MAX_PAGES = 1000;

// Connects to the hub (each step within DEFAULT_HUB_WAIT_MS), asks, closes.
async function askHub<T>(
  ctx: AppContext,
  url: string,
  tokenFile: string | undefined,
  body: (hub: AgentConnection) => Promise<T>,
): Promise<T> {
  const hub = await connectToHub(ctx, url, tokenFile, DEFAULT_HUB_WAIT_MS);
  try {
    return await body(hub);
  } finally {
    await hub.close();
  }
}

// The hub's sessions the token may see, in the hub's order; `cwd` narrows to one folder.
export function hubSessions(
  ctx: AppContext,
  url: string,
  tokenFile: string | undefined,
  cwd: string | undefined,
): Promise<HubSession[]> {
  return askHub(ctx, url, tokenFile, async (hub) => {
    const all: HubSession[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const answer = await hub.listSessions({
        ...(cwd ? { cwd: resolve(cwd) } : {}),
        ...(cursor ? { cursor } : {}),
      });
      all.push(...(answer.sessions as HubSession[]));
      cursor = answer.nextCursor ?? undefined;
      if (!cursor) break;
    }
    return all;
  });
}

// A hub session's replayed updates, each with its `_meta` (a prompt's `acphub.author`).
export function hubSessionHistory(
  ctx: AppContext,
  url: string,
  tokenFile: string | undefined,
  id: string,
): Promise<ShownItem[]> {
  return askHub(ctx, url, tokenFile, async (hub) => {
    const { replay } = await hub.loadSession(
      id,
      { cwd: process.cwd(), mcpServers: [] },
      AbortSignal.timeout(DEFAULT_HUB_WAIT_MS),
    );
    return replay.flatMap((e) =>
      e.type === "session_update"
        ? [
            {
              update: e.update as Record<string, unknown>,
              ...(e.meta ? { meta: e.meta } : {}),
            },
          ]
        : [],
    );
  });
}
