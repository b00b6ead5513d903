// `acphub sessions list|show --hub URL`: a running hub's sessions (app/hub-sessions.ts asks it),
// shown like the ledger's.
import {
  hubSessionHistory,
  hubSessions,
  hubSessionState,
} from "../app/hub-sessions.js";
import { cliContext } from "../app/context.js";
import { readable } from "../app/history-text.js";
import type { ExitCode } from "./exit-codes.js";
import { guarded, out, outList, type JsonOptions } from "./guard.js";
import { inertJson, safeText } from "./tty/safe-text.js";

type HubSessionsOptions = JsonOptions & { cwd?: string; tokenFile?: string };

// Lists the hub's sessions, one line each (id, state, last update, folder, title) or as JSON.
export function hubSessionsList(
  hub: string,
  o: HubSessionsOptions,
): Promise<ExitCode> {
  return guarded(async () => {
    const all = await hubSessions(cliContext(o), hub, o.tokenFile, o.cwd);
    outList(
      o.json,
      all,
      "no sessions\n",
      (s) =>
        `${s.sessionId}  ${hubSessionState(s)}  ${s.updatedAt ?? ""}  ${s.cwd}  ${s.title ?? "(untitled)"}\n`,
    );
  });
}

// Shows a hub session's history: who said what (a prompt's author), or its updates as JSON.
export function hubSessionsShow(
  hub: string,
  id: string,
  o: HubSessionsOptions,
): Promise<ExitCode> {
  return guarded(async () => {
    const items = await hubSessionHistory(cliContext(o), hub, o.tokenFile, id);
    if (o.json) {
      const updates = items.map((i) => ({ update: i.update, _meta: i.meta }));
      out(inertJson({ sessionId: id, updates }) + "\n");
    } else {
      out(safeText(`${id}  (on ${hub})\n\n`));
      for (const line of readable(items)) out(safeText(line + "\n"));
    }
  });
}
