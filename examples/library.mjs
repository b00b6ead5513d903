// acphub as a library: connect to an agent, open a session, stream a prompt with cancel,
// chat(), and the pool. Run it after `npm run build`: node examples/library.mjs
import {
  AgentPool,
  connectAgent,
  loadConfig,
  resolveAgent,
} from "../dist/index.js";

const { config } = loadConfig(); // $ACPHUB_HOME/config.json or XDG; missing file = defaults
const launch = resolveAgent(process.argv[2] ?? "mock", config);

// 1. One connection, one session, a streamed prompt.
const agent = await connectAgent({ launch });
console.log("agent:", agent.initializeResponse?.agentInfo?.name);
const session = await agent.newSession({ cwd: process.cwd() });
const run = session.prompt("Hello from the library");
for await (const event of run) {
  if (event.type === "session_update")
    console.log("update:", event.update.sessionUpdate);
}
console.log("stop reason:", (await run.result).stopReason);

// 2. Cancel: abort the signal; the turn ends with stopReason "cancelled", not an error.
const controller = new AbortController();
const slow = session.prompt(JSON.stringify({ steps: [{ sleep: 10000 }] }), {
  signal: controller.signal,
});
setTimeout(() => controller.abort(), 100);
console.log("cancelled turn:", (await slow.result).stopReason);

// 3. chat(): one turn as plain text.
const { text } = await session.chat("Say something");
console.log("chat:", text);
await agent.close();

// 4. The pool: warm processes keyed by (agent, cwd, key), one spawn per key.
const pool = new AgentPool({
  connect: (key) => connectAgent({ launch: resolveAgent(key.agent, config) }),
});
const lease = await pool.acquire({ agent: launch.name, cwd: process.cwd() });
const pooled = await lease.connection.newSession({ cwd: process.cwd() });
console.log("pooled chat:", (await pooled.chat("ping")).text);
lease.release(); // stays warm until idle for the TTL (5 minutes by default)
await pool.close();
