// The ACPHUB_HOME the lab gives acphub: a config whose default agent is the installed real agent,
// launched with the lab's environment (shared by the tests and bench/interop.mjs).
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * @param {string} home
 * @param {string} agent
 * @param {{ command: string, args: string[], env: Record<string, string> }} entry
 */
export function writeAcphubHome(home, agent, entry) {
  const config = {
    defaultAgent: agent,
    agents: { [agent]: entry },
    timeouts: { initializeMs: 60_000 },
  };
  writeFileSync(join(home, "config.json"), JSON.stringify(config, null, 2));
}
