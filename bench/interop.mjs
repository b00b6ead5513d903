// Start-up and first-update latency of the lab's real agents, directly (an SDK client straight
// to the agent) and through `acphub acp`, against the lab's fake model. Prints figures; asserts
// nothing. Usage: npm run build && node bench/interop.mjs [ROUNDS] [AGENT...]
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeModel } from "../test/interop/fake-model/server.mjs";
import { writeAcphubHome } from "../test/interop/lab/acphub-home.mjs";
import { agentLaunch } from "../test/interop/lab/agent-env.mjs";
import { startEditorOn } from "../test/interop/lab/editor-client.mjs";
import { installAll } from "../test/interop/lab/install.mjs";
import { AGENT_NAMES } from "../test/interop/lab/versions.mjs";
import { CLI, median } from "./common.mjs";

const rounds = Number(process.argv[2] ?? 3);
const agents = process.argv.length > 3 ? process.argv.slice(3) : AGENT_NAMES;

// One cold start: spawn, initialize, session/new, one prompt until its first update.
async function once(launch, cwd) {
  const e = startEditorOn({ ...launch, cwd }, { fs: true, terminal: true });
  try {
    const t0 = performance.now();
    await e.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: e.clientCapabilities,
    });
    const init = performance.now() - t0;
    const { sessionId } = await e.agent.request("session/new", {
      cwd,
      mcpServers: [],
    });
    const created = performance.now() - t0;
    const seen = e.updates().length;
    const t1 = performance.now();
    const done = e.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "hi [[reply BENCH]]" }],
    });
    while (e.updates().length === seen)
      await new Promise((r) => setTimeout(r, 2));
    const first = performance.now() - t1;
    const isText = (u) =>
      u.update?.sessionUpdate === "agent_message_chunk" &&
      u.update.content?.text;
    while (!e.updates().slice(seen).some(isText))
      await new Promise((r) => setTimeout(r, 2));
    const text = performance.now() - t1;
    await done;
    return { init, created, first, text };
  } finally {
    await e.close();
  }
}

// The median of each figure over `rounds` cold starts.
async function measure(makeLaunch, cwd) {
  const runs = [];
  for (let i = 0; i < rounds; i++) runs.push(await once(makeLaunch(i), cwd));
  const pick = (k) => median(runs.map((r) => r[k]));
  return {
    init: pick("init"),
    created: pick("created"),
    first: pick("first"),
    text: pick("text"),
  };
}

installAll(agents);
const model = await startFakeModel();
const rows = [];
for (const agent of agents) {
  const root = mkdtempSync(join(tmpdir(), `acphub-bench-${agent}-`));
  const cwd = join(root, "work");
  mkdirSync(cwd);
  const launch = agentLaunch(agent, join(root, "agent"), model.url);
  const direct = await measure(() => launch, cwd);
  const viaHub = await measure((i) => {
    const home = join(root, `hub-${i}`);
    mkdirSync(home);
    writeAcphubHome(home, agent, launch);
    return {
      command: process.execPath,
      args: [CLI, "acp"],
      env: { PATH: process.env.PATH ?? "", HOME: home, ACPHUB_HOME: home },
    };
  }, cwd);
  rows.push({ agent, direct, viaHub });
  rmSync(root, {
    recursive: true,
    force: true,
    maxRetries: 5,
    retryDelay: 200,
  });
}
await model.close();

const ms = (v) => `${Math.round(v)} ms`;
console.log(
  `interop start-up, median of ${rounds} cold starts (initialize and session/new from spawn; ` +
    `first update and first text from sending the prompt)`,
);
console.log(
  "| agent | path | initialize | session/new | first update | first text |",
);
console.log("|---|---|---|---|---|---|");
for (const { agent, direct, viaHub } of rows)
  for (const [path, r] of [
    ["direct", direct],
    ["acphub acp", viaHub],
  ])
    console.log(
      `| ${agent} | ${path} | ${ms(r.init)} | ${ms(r.created)} | ${ms(r.first)} | ${ms(r.text)} |`,
    );
