// Writes agent entries into the user's config file (`agents add|update|remove`): the file is
// read again, only `agents.NAME` changes, the result is checked against the schema before it
// replaces the file (written beside it, then renamed), so the user's other keys stay as they were.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseConfig } from "../config/load.js";
import type { AgentEntry } from "../config/schema.js";
import { HubError } from "../shared/errors.js";

type Raw = Record<string, unknown> & { agents?: Record<string, unknown> };

// The file's JSON as it stands (an empty object when there is no file yet).
function readRaw(file: string): Raw {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new HubError(
      "CONFIG_INVALID",
      `cannot read config file ${file}: ${(error as Error).message}`,
    );
  }
  parseConfig(text, file);
  return JSON.parse(text) as Raw;
}

// Sets (or with `undefined` deletes) one agent entry and writes the file back; a deleted
// entry that was the `defaultAgent` takes that key with it when `dropDefault` (said by the
// result: true when it did).
export function writeAgentEntry(
  file: string,
  name: string,
  entry: AgentEntry | undefined,
  dropDefault = false,
): boolean {
  const raw = readRaw(file);
  const agents = { ...(raw.agents ?? {}) };
  if (entry) agents[name] = entry;
  else delete agents[name];
  const next: Raw = { ...raw, agents };
  if (Object.keys(agents).length === 0) delete next.agents;
  const dropped = !entry && dropDefault && raw["defaultAgent"] === name;
  if (dropped) delete next["defaultAgent"];
  const text = `${JSON.stringify(next, null, 2)}\n`;
  parseConfig(text, file);
  mkdirSync(dirname(file), { recursive: true });
  const staged = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(staged, text, { mode: 0o600 });
  renameSync(staged, file);
  return dropped;
}
