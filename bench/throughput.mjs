// Prompt-stream throughput: session/update notifications per second from the mock agent,
// received through acphub's client core versus a bare SDK client. Prints figures and ratio.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";
import { connectAgent } from "../dist/index.js";
import { CLI, median, mockLaunch, streamPrompt } from "./common.mjs";

const UPDATES = Number(process.env.BENCH_UPDATES ?? 20000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

async function viaAcphub() {
  const agent = await connectAgent({ launch: mockLaunch() });
  const session = await agent.newSession({ cwd: process.cwd() });
  const times = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    let count = 0;
    for await (const event of session.prompt(streamPrompt(UPDATES)))
      if (event.type === "session_update") count++;
    if (count !== UPDATES) throw new Error(`acphub saw ${count} updates`);
    times.push(performance.now() - start);
  }
  await agent.close();
  return median(times);
}

async function viaBareSdk() {
  const child = spawn(process.execPath, [CLI, "mock-agent"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let count = 0;
  const app = client({ name: "bench" }).onNotification(
    methods.client.session.update,
    () => {
      count++;
    },
  );
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin),
    Readable.toWeb(child.stdout),
  );
  const times = await app.connectWith(stream, async (agent) => {
    await agent.request(methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    const { sessionId } = await agent.request(methods.agent.session.new, {
      cwd: process.cwd(),
      mcpServers: [],
    });
    const out = [];
    for (let round = 0; round < ROUNDS; round++) {
      count = 0;
      const start = performance.now();
      await agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: streamPrompt(UPDATES) }],
      });
      if (count !== UPDATES) throw new Error(`bare SDK saw ${count} updates`);
      out.push(performance.now() - start);
    }
    return out;
  });
  child.kill();
  return median(times);
}

const bare = await viaBareSdk();
const hub = await viaAcphub();
const rate = (ms) => Math.round((UPDATES / ms) * 1000);
console.log(
  `prompt-stream throughput, ${UPDATES} updates per turn, median of ${ROUNDS} turns`,
);
console.log(
  `  bare SDK client : ${rate(bare).toLocaleString("en")} updates/s (${bare.toFixed(0)} ms/turn)`,
);
console.log(
  `  acphub core     : ${rate(hub).toLocaleString("en")} updates/s (${hub.toFixed(0)} ms/turn)`,
);
console.log(`  ratio acphub/bare: ${(rate(hub) / rate(bare)).toFixed(2)}`);
