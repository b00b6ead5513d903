// A hub with users (issue 22): users made in the hub's ledger before it starts (the CLI path
// is tested on its own in users-cli.test.ts), and clients connected as each of them.
import { join } from "node:path";
import { addUser } from "../../src/app/user-admin.js";
import type { UserRole } from "../../src/contracts/users.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { mockConfig } from "./editor.js";
import {
  connectClient,
  INIT,
  startHub,
  type HubTestClient,
  type RunningHub,
  type Transport,
} from "./hub.js";
import { tempDir } from "./mock.js";

/**
 * The folder the team tests open sessions in: every member's root (`users.roots`), since /tmp
 * holds the hubs' state folders and so can never be a session folder (issue 34).
 */
export const TEAM_WORK = tempDir("acphub-team-work-");

export interface TeamHub {
  h: RunningHub;
  home: string;
  /** Each user's token by name ("admin": the serve token). */
  tokens: Record<string, string>;
}

/** Adds users to the ledger of `home`; their tokens by name. */
export async function addUsers(
  home: string,
  users: Record<string, UserRole>,
): Promise<Record<string, string>> {
  const ledger = new SqliteLedger(join(home, "ledger.db"));
  const tokens: Record<string, string> = {};
  for (const [name, role] of Object.entries(users))
    tokens[name] = (await addUser(ledger.users, name, role)).token;
  await ledger.close();
  return tokens;
}

/** Hubs with users and their clients, stopped after each test. */
export function teamFixture() {
  const hubs: RunningHub[] = [];
  const clients: HubTestClient[] = [];
  return {
    async start(
      users: Record<string, UserRole>,
      config: Record<string, unknown> = {},
      flags: string[] = [],
      /** Runs before the hub starts (the users exist by then). */
      prepare?: (home: string) => Promise<void>,
    ): Promise<TeamHub> {
      const home = tempDir();
      const given = (config["users"] ?? {}) as Record<string, unknown>;
      mockConfig(home, flags, {
        ...config,
        users: { roots: { "*": [TEAM_WORK] }, ...given },
      });
      const tokens = await addUsers(home, users);
      await prepare?.(home);
      const h = await startHub(home);
      hubs.push(h);
      return { h, home, tokens: { ...tokens, admin: h.token } };
    },
    connect(
      team: TeamHub,
      user: string,
      transport: Transport,
      onRequest?: Parameters<typeof connectClient>[2],
    ): HubTestClient {
      const token = team.tokens[user];
      if (!token) throw new Error(`no user ${user}`);
      const c = connectClient(
        { acpUrl: team.h.acpUrl, token },
        transport,
        onRequest,
      );
      clients.push(c);
      return c;
    },
    async cleanup() {
      for (const c of clients.splice(0)) c.close();
      for (const h of hubs.splice(0)) {
        h.child.kill("SIGKILL");
        await h.exited;
      }
    },
  };
}

/** initialize, then session/load of a session made in TEAM_WORK (the team tests' folder). */
export async function joinSession(
  c: HubTestClient,
  sessionId: string,
): Promise<void> {
  await c.agent.request("initialize", INIT);
  await c.agent.request("session/load", {
    sessionId,
    cwd: TEAM_WORK,
    mcpServers: [],
  });
}
