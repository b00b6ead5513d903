// Issue 36 against real agents: one agent under two hub users of `acphub serve`, each with their
// own fake-model key stored as their secret (`acphub users secrets set`) and named by the agent's
// config entry (`${secret:NAME}`). Each key reaches only its own user's model requests, the
// operator's own key none, and the two users' sessions run in two agent processes.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFailed } from "vitest";
import { runCli } from "../helpers/cli.js";
import {
  connectClient,
  INIT,
  startHub,
  type HubTestClient,
  type RunningHub,
} from "../helpers/hub.js";
import { openLab, type Lab } from "./lab/lab.js";
import { agentLaunch } from "./lab/agent-env.mjs";
import * as scenario from "./lab/scenario.js";
import { messageText } from "./lab/turns.js";

/** The variable each agent reads its model key from (agent-env.mjs). */
const KEY_VARS = { claude: "ANTHROPIC_API_KEY", codex: "FAKE_MODEL_API_KEY" };
const OPERATOR_KEY = "sk-operator-must-not-leak";

let lab: Lab | undefined;
let hub: RunningHub | undefined;
const clients: HubTestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  hub?.child.kill("SIGTERM");
  await hub?.exited;
  hub = undefined;
  await lab?.close();
  lab = undefined;
});

// The lab's acphub config, with the agent's key taken from each user's secret.
function teamConfig(l: Lab, agent: keyof typeof KEY_VARS): void {
  const keyVar = KEY_VARS[agent];
  const launch = agentLaunch(agent, join(l.root, "agent"), l.model.url);
  const config = {
    defaultAgent: agent,
    agents: {
      [agent]: {
        ...launch,
        env: {
          ...launch.env,
          ACPHUB_INTEROP_RUN: l.root,
          [keyVar]: `\${secret:${keyVar}}`,
        },
      },
    },
    timeouts: { initializeMs: 60_000 },
    users: { roots: { "*": [l.work] } },
  };
  writeFileSync(join(l.home, "config.json"), JSON.stringify(config, null, 2));
}

// The HOME of every live process that carries the lab's agent marker (the agents, not the hub).
function agentHomes(l: Lab): string[] {
  const homes = new Set<string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      if (!env.includes(`ACPHUB_INTEROP_RUN=${l.root}`)) continue;
      const home = env.find((v) => v.startsWith("HOME="));
      if (home) homes.add(home.slice(5));
    } catch {
      /* gone or not ours */
    }
  }
  return [...homes].sort();
}

// Adds a member with their model key as a secret; their token.
async function member(l: Lab, name: string, keyVar: string): Promise<string> {
  const add = await runCli(["users", "add", name, "--json"], { home: l.home });
  expect(add.code, add.stderr).toBe(0);
  const set = await runCli(["users", "secrets", "set", name, keyVar], {
    home: l.home,
    input: `sk-${name}-key`,
  });
  expect(set.code, set.stderr).toBe(0);
  return String((JSON.parse(add.stdout) as { token: string }).token);
}

// One turn of a user's session; the keys the model saw during it.
async function turn(
  l: Lab,
  c: HubTestClient,
  sessionId: string,
): Promise<string[]> {
  const before = l.model.log.length;
  const answer = await c.agent.request<{ stopReason: string }>(
    "session/prompt",
    { sessionId, prompt: [{ type: "text", text: scenario.turnText() }] },
  );
  expect(answer.stopReason).toBe("end_turn");
  expect(messageText(c.updates(sessionId))).toContain(scenario.TOKENS.one);
  return [
    ...new Set(
      l.model.log
        .slice(before)
        .filter((line) => line.api)
        .map((line) => line.key ?? "(none)"),
    ),
  ];
}

describe.each(Object.keys(KEY_VARS) as (keyof typeof KEY_VARS)[])(
  "%s under two hub users",
  (agent) => {
    it("each user's key reaches only that user's model requests", async () => {
      lab = await openLab(agent);
      const l = lab;
      onTestFailed(() => {
        process.stderr.write(
          `interop: team ${agent} failed; model log: ${JSON.stringify(l.model.log)}\nhub stderr: ${hub?.stderr()}\n`,
        );
      });
      teamConfig(l, agent);
      const keyVar = KEY_VARS[agent];
      const tokens = {
        alice: await member(l, "alice", keyVar),
        bob: await member(l, "bob", keyVar),
      };
      hub = await startHub(l.home, [], {
        [keyVar]: OPERATOR_KEY,
        ACPHUB_INTEROP_RUN: `${l.root}-hub`,
      });
      const opened: Record<string, { c: HubTestClient; id: string }> = {};
      for (const name of ["alice", "bob"] as const) {
        const c = connectClient(
          { acpUrl: hub.acpUrl, token: tokens[name] },
          "ws",
        );
        clients.push(c);
        await c.agent.request("initialize", INIT);
        const { sessionId } = await c.agent.request<{ sessionId: string }>(
          "session/new",
          { cwd: l.work, mcpServers: [] },
        );
        opened[name] = { c, id: sessionId };
      }
      const alice = opened["alice"]!;
      const bob = opened["bob"]!;
      expect(await turn(l, alice.c, alice.id)).toEqual(["sk-alice-key"]);
      expect(await turn(l, bob.c, bob.id)).toEqual(["sk-bob-key"]);
      expect(await turn(l, alice.c, alice.id)).toEqual(["sk-alice-key"]);
      const keys = new Set(l.model.log.map((line) => line.key));
      expect(keys.has(OPERATOR_KEY)).toBe(false);
      // Two users, two agent processes, each with its user's own HOME (beside them, the admin's,
      // which answered initialize).
      expect(agentHomes(l)).toEqual(
        expect.arrayContaining([
          join(l.home, "homes", "alice"),
          join(l.home, "homes", "bob"),
        ]),
      );
    });
  },
);
