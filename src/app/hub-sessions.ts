// What `acphub sessions list|show|move --hub URL` ask of a running hub, over ACP with the hub's ids
// (the ones its page, `run --hub` and `chat --hub` show and take): its session list, every page
// of session/list, and a session's history as the hub replays it on session/load.
import { resolve } from "node:path";
import type { AppContext } from "../config/context.js";
import { DEFAULT_HUB_WAIT_MS } from "./deadline.js";
import { connectToHub, type AgentConnection } from "./hub-client.js";
import type { ShownItem } from "./sessions.js";
import { hostname } from "node:os";
import { DEFAULT_LEASE_MS, moveThroughLedger } from "../cluster/index.js";
import { HubError } from "../shared/errors.js";
import { HUB_METHOD } from "../shared/hub-extension.js";
import { openLedger } from "./wiring.js";

export interface HubSession {
  sessionId: string;
  cwd: string;
  title?: string | null;
  updatedAt?: string | null;
  _meta?: { acphub?: { state?: string } } | null;
}

/** What the hub says of a session's turn: running (on any node), waiting, failed or idle. */
export function hubSessionState(s: HubSession): string {
  return s._meta?.acphub?.state ?? "idle";
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

/** Where a session moved: the node that runs its agent now, and the one that did before. */
export interface Moved {
  sessionId: string;
  node: string;
  from?: string;
}

/** `acphub sessions move`'s options. */
export interface MoveOptions {
  to?: string;
  hub?: string;
  tokenFile?: string;
}

// `acphub sessions move ID --to NODE`: asked of a hub (an admin's token) with `hub`, else
// straight through the cluster's PostgreSQL ledger.
export async function moveSession(
  ctx: AppContext,
  id: string,
  { to: node, hub, tokenFile }: MoveOptions,
): Promise<Moved> {
  if (!node) throw new HubError("USAGE", "--to NODE is required");
  if (hub)
    return askHub(ctx, hub, tokenFile, (c) =>
      c.request<Moved>(HUB_METHOD.sessionsMove, { sessionId: id, node }),
    );
  const ledger = await openLedger(ctx);
  try {
    if (!ledger.cluster)
      throw new HubError(
        "USAGE",
        "sessions move needs a cluster: a PostgreSQL ledger (ledger.url or ACPHUB_LEDGER_URL), or --hub URL",
      );
    if (!(await ledger.getSession(id)))
      throw new HubError("SESSION_NOT_FOUND", `no session ${id}`);
    const leaseMs = ctx.config.cluster?.leaseMs ?? DEFAULT_LEASE_MS;
    const from = `cli:${hostname()}:${process.pid}`;
    return (await moveThroughLedger(
      ledger.cluster,
      id,
      node,
      leaseMs,
      from,
    )) as unknown as Moved;
  } finally {
    await ledger.close();
  }
}
