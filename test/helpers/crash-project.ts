// A project whose workflow `crash` is killed mid-step in tests: agents `first` (keeps its
// sessions in a file, to count its turns) and `slow` (sleeps until its scenario is rewritten).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mockConfig } from "./editor.js";
import { CLI, tempDir } from "./mock.js";

/** The project with `crash.yaml` = `workflow`; rewrite `slow` to let step `slow` finish. */
export function crashProject(workflow: string) {
  const home = tempDir("acphub-home-");
  const cwd = tempDir("acphub-proj-");
  const firstSessions = join(home, "first.json");
  const slow = join(home, "slow.json");
  writeFileSync(slow, JSON.stringify({ steps: [{ sleep: 60_000 }] }));
  const mock = (flags: string[]) => ({
    command: process.execPath,
    args: [CLI, "mock-agent", ...flags],
  });
  mockConfig(home, [], {
    agents: {
      mock: mock([]),
      first: mock(["--sessions-file", firstSessions]),
      slow: mock(["--scenario", slow]),
    },
  });
  mkdirSync(join(cwd, ".acphub", "workflows"), { recursive: true });
  writeFileSync(join(cwd, ".acphub", "workflows", "crash.yaml"), workflow);
  const turnsOfFirst = () =>
    (
      JSON.parse(readFileSync(firstSessions, "utf8")) as [
        string,
        { turns: number },
      ][]
    ).map(([, s]) => s.turns);
  return { home, cwd, slow, turnsOfFirst };
}
