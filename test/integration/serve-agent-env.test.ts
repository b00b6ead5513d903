// The secrets port of `acphub serve` (issue 36, `openServeHub`'s `agentEnv`): asked with the
// user, the agent and its config entry's env when a session is opened, its additions reach that
// user's agent process only (members' and admins' alike), and a refusal (a missing secret)
// refuses session/new with its message before anything starts, recording nothing.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openServeHub, type ServeHub } from "../../src/app/serve-hub.js";
import { configSchema } from "../../src/config/schema.js";
import type { HubUser } from "../../src/contracts/users.js";
import type { HubClient } from "../../src/hub/attachments.js";
import type { Note } from "../../src/hub/frames.js";
import { createMetrics } from "../../src/server/metrics.js";
import { HubError } from "../../src/shared/errors.js";
import { silentLogger } from "../../src/shared/logger.js";
import { addUsers, TEAM_WORK } from "../helpers/team.js";
import { CLI, steps, tempDir } from "../helpers/mock.js";

const opened: ServeHub[] = [];
afterEach(async () => {
  for (const hub of opened.splice(0)) await hub.close();
});

// A hub client of a user, keeping the agent text it is sent.
function clientOf(user: HubUser) {
  const notes: Note[] = [];
  const c: HubClient = {
    id: user.name,
    closed: false,
    user,
    notify: (note) => void notes.push(note),
    request: () => Promise.reject(new Error("no requests here")),
  };
  const said = () =>
    notes
      .map((n) => n.params["update"] as { content?: { text?: string } })
      .map((u) => u?.content?.text ?? "")
      .join("");
  return { c, said };
}

describe(
  "acphub serve: the secrets port (agentEnv)",
  { timeout: 60_000 },
  () => {
    it("adds a user's variables to their own agent, and refuses a session whose secret is missing", async () => {
      const stateDir = tempDir();
      await addUsers(stateDir, { alice: "member", bob: "member" });
      const config = configSchema.parse({
        defaultAgent: "mock",
        agents: {
          mock: {
            command: process.execPath,
            args: [CLI, "mock-agent"],
            env: { MODEL_KEY: "${secret:MODEL_KEY}", PLAIN: "as written" },
          },
        },
        users: { roots: { "*": [TEAM_WORK] } },
      });
      const asked: unknown[] = [];
      const hub = await openServeHub(
        {
          config,
          paths: { stateDir, configFile: join(stateDir, "config.json") },
          fromFile: false,
          logger: silentLogger(),
        },
        {
          agent: undefined,
          metrics: createMetrics(() => 0),
          cancelOnDisconnect: false,
          serveToken: "serve-token-for-this-test",
          agentEnv: (user, agent, configEnv) => {
            asked.push({ user, agent, configEnv });
            if (user === "bob")
              return Promise.reject(
                new HubError(
                  "USAGE",
                  "bob has no secret MODEL_KEY: set it with acphub users secrets set bob MODEL_KEY",
                ),
              );
            return Promise.resolve({
              MODEL_KEY: `model-key-of-${user}`,
              TEAM_PLAN: `plan-of-${user}`,
            });
          },
        },
      );
      opened.push(hub);
      const alice = clientOf({ name: "alice", role: "member" });
      const admin = clientOf({ name: "admin", role: "admin" });
      const bob = clientOf({ name: "bob", role: "member" });
      for (const { c } of [alice, admin, bob]) hub.hub.addClient(c);
      const params = { cwd: TEAM_WORK, mcpServers: [] };
      const envOf = async (who: ReturnType<typeof clientOf>) => {
        const { sessionId } = (await hub.hub.newSession(who.c, params)) as {
          sessionId: string;
        };
        await hub.hub.prompt(
          who.c,
          {
            sessionId,
            prompt: [
              {
                type: "text",
                text: steps({ env: ["MODEL_KEY", "TEAM_PLAN", "PLAIN"] }),
              },
            ],
          },
          new AbortController().signal,
        );
        return who.said();
      };
      const aliceSaw = await envOf(alice);
      expect(aliceSaw).toContain("MODEL_KEY=model-key-of-alice\n");
      expect(aliceSaw).toContain("TEAM_PLAN=plan-of-alice\n");
      expect(aliceSaw).toContain("PLAIN=as written\n");
      const adminSaw = await envOf(admin);
      expect(adminSaw).toContain("MODEL_KEY=model-key-of-admin\n");
      expect(adminSaw).not.toContain("alice");
      expect(asked).toContainEqual({
        user: "alice",
        agent: "mock",
        configEnv: { MODEL_KEY: "${secret:MODEL_KEY}", PLAIN: "as written" },
      });
      // bob's missing secret refuses his session/new with its message; nothing is recorded.
      const before = (await hub.hub.ledger.listSessions({})).sessions.length;
      await expect(hub.hub.newSession(bob.c, params)).rejects.toThrow(
        "bob has no secret MODEL_KEY: set it with acphub users secrets set bob MODEL_KEY",
      );
      expect((await hub.hub.ledger.listSessions({})).sessions.length).toBe(
        before,
      );
      expect(before).toBe(2);
    });
  },
);
