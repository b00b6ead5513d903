// `acphub sessions list|show --hub URL`: the sessions of a running hub, with the hub's ids (the ones
// its page, `run --hub` and `chat --hub` show and take), asked of the hub with session/list.
import { resolve } from "node:path";
import type { AgentConnection } from "../app/hub-client.js";
import { readable } from "./sessions.js";
import { cliContext, type GlobalOptions } from "../app/context.js";
import { DEFAULT_HUB_WAIT_MS } from "./deadline.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { fail } from "./guard.js";
import { inertJson, safeText } from "./tty/safe-text.js";

export interface HubSessionsOptions extends GlobalOptions {
  hub: string;
  tokenFile?: string;
  json?: boolean;
  cwd?: string;
}

/** Pages of session/list read at most (a hub answering cursors forever still ends). */
const MAX_PAGES = 1000;

interface HubSession {
  sessionId: string;
  cwd: string;
  title?: string | null;
  updatedAt?: string | null;
}

// Connects to the hub named by --hub (bounded wait), runs `body`, closes; errors as exit codes.
async function withHub(
  o: HubSessionsOptions,
  body: (hub: AgentConnection) => Promise<void>,
): Promise<ExitCode> {
  try {
    const ctx = cliContext(o);
    const { connectToHub } = await import("../app/hub-client.js");
    const hub = await connectToHub(
      ctx,
      o.hub,
      o.tokenFile,
      DEFAULT_HUB_WAIT_MS,
    );
    try {
      await body(hub);
    } finally {
      await hub.close();
    }
    return EXIT_CODES.ok;
  } catch (error) {
    return fail(error);
  }
}

// Lists the hub's sessions, one line each (id, last update, folder, title) or as JSON.
export function hubSessionsList(o: HubSessionsOptions): Promise<ExitCode> {
  return withHub(o, async (hub) => {
    const all: HubSession[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const answer = await hub.listSessions({
        ...(o.cwd ? { cwd: resolve(o.cwd) } : {}),
        ...(cursor ? { cursor } : {}),
      });
      all.push(...(answer.sessions as HubSession[]));
      cursor = answer.nextCursor ?? undefined;
      if (!cursor) break;
    }
    if (o.json) process.stdout.write(inertJson(all) + "\n");
    else if (all.length === 0) process.stdout.write("no sessions\n");
    else
      for (const s of all)
        process.stdout.write(
          safeText(
            `${s.sessionId}  ${s.updatedAt ?? ""}  ${s.cwd}  ${s.title ?? "(untitled)"}`,
          ) + "\n",
        );
  });
}

// Shows a hub session's history as the hub replays it on session/load: who said what (a
// prompt's author from `_meta.acphub.author`), or its updates as JSON.
export function hubSessionsShow(
  id: string,
  o: HubSessionsOptions,
): Promise<ExitCode> {
  return withHub(o, async (hub) => {
    const { replay } = await hub.loadSession(
      id,
      { cwd: process.cwd(), mcpServers: [] },
      AbortSignal.timeout(DEFAULT_HUB_WAIT_MS),
    );
    const items = replay.flatMap((e) =>
      e.type === "session_update"
        ? [
            {
              update: e.update as Record<string, unknown>,
              ...(e.meta ? { meta: e.meta } : {}),
            },
          ]
        : [],
    );
    if (o.json) {
      const updates = items.map((i) => ({ update: i.update, _meta: i.meta }));
      process.stdout.write(inertJson({ sessionId: id, updates }) + "\n");
      return;
    }
    process.stdout.write(safeText(`${id}  (on ${o.hub})\n\n`));
    for (const line of readable(items))
      process.stdout.write(safeText(line + "\n"));
  });
}
