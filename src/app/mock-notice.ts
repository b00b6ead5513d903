// The "no agent configured" notice: said once per state folder, not on every run, so that a
// user who is fine with the mock agent (or a script) is not told the same thing forever.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HubPaths } from "../config/paths.js";

const MARKER = "mock-notice-shown";

function noticeText(configFile: string): string {
  return (
    `acphub: no agent configured, so this is the built-in mock agent. To use a real one, pass ` +
    `--agent claude|codex|gemini|opencode|goose|pi|kiro or set "defaultAgent" in ${configFile}\n`
  );
}

// The notice the first time the mock agent is picked by default in this state folder.
export function mockNoticeOnce(paths: HubPaths): string | undefined {
  const marker = join(paths.stateDir, MARKER);
  if (existsSync(marker)) return undefined;
  try {
    mkdirSync(paths.stateDir, { recursive: true });
    writeFileSync(marker, `${new Date().toISOString()}\n`);
  } catch {
    // a read-only state folder: the notice is said again next time, which is harmless
  }
  return noticeText(paths.configFile);
}
