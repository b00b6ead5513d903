// A session list that tells the truth about turns other nodes run (issue 38): the watch knows
// only the sessions a client here follows, so a session open nowhere on this node read idle
// while its turn ran on another. The sessions of the page the watch holds idle (or failed) are
// asked of the runner in one query: the busy leases other nodes hold, and their open questions —
// except those a client here follows: the feed told the watch their turns' starts and ends from
// the ledger's events, which a lease's busy mark, cleared after the turn's end, may lag behind.
import type { Logger } from "../shared/logger.js";
import type { SessionRunner } from "./runner.js";

type Params = Record<string, unknown>;

/** The states the watch may not know: a turn elsewhere could be running. */
const UNKNOWING = new Set(["idle", "failed"]);

// The page with the state of every session whose turn another node runs set from the ledger.
export async function withTurnsElsewhere(
  page: Params,
  runner: SessionRunner | undefined,
  logger: Logger,
  followed: (sessionId: string) => boolean,
): Promise<Params> {
  const sessions = (page["sessions"] ?? []) as Params[];
  const unsure = sessions.filter(
    (s) =>
      UNKNOWING.has(String(stateOf(s))) && !followed(String(s["sessionId"])),
  );
  if (!runner?.turnsElsewhere || unsure.length === 0) return page;
  try {
    const turns = await runner.turnsElsewhere(
      unsure.map((s) => String(s["sessionId"])),
    );
    for (const s of unsure) {
      const turn = turns.get(String(s["sessionId"]));
      const acphub = acphubOf(s);
      if (turn && acphub)
        Object.assign(acphub, { running: true, state: turn.state });
    }
  } catch (error) {
    // The list still answers, with what this node knows.
    logger.warn({ err: error }, "cluster: turns on other nodes not read");
  }
  return page;
}

// The `_meta.acphub` of a session/list entry, if any.
function acphubOf(s: Params): Params | undefined {
  const meta = s["_meta"] as Params | undefined;
  return meta?.["acphub"] as Params | undefined;
}

// The state the watch gave the entry.
function stateOf(s: Params): unknown {
  return acphubOf(s)?.["state"];
}
