// No orphans after kill -9 of the owner: a later acphub reaps recorded agents whose owner is
// gone, and never kills a process whose pid was reused.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reapOrphans } from "../../src/agents/orphans.js";
import { processStartTime } from "../../src/shared/process-group.js";
import { CLI, groupGone, tempDir, waitFor } from "../helpers/mock.js";

const OWNER = `
import { connectAgent } from ${JSON.stringify(new URL("../../dist/index.js", import.meta.url).href)};
const launch = { name: "mock", command: process.execPath, args: [${JSON.stringify(CLI)}, "mock-agent", "--ignore-eof"], env: { PATH: process.env.PATH }, source: "bundled", description: "" };
const agent = await connectAgent({ launch, stateDir: process.argv[1] });
process.stdout.write(String(agent.pid) + "\\n");
setInterval(() => {}, 1000);
`;

describe("orphan reaping", () => {
  it("kills an agent whose owner was killed with SIGKILL", async () => {
    const stateDir = tempDir();
    const owner = spawn(
      process.execPath,
      ["--input-type=module", "-e", OWNER, stateDir],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const agentPid = await new Promise<number>((resolve) =>
      owner.stdout.once("data", (d: Buffer) =>
        resolve(Number(String(d).trim())),
      ),
    );
    expect(readdirSync(join(stateDir, "agents"))).toEqual([`${agentPid}.json`]);
    owner.kill("SIGKILL");
    await new Promise((r) => owner.once("exit", r));
    await new Promise((r) => setTimeout(r, 200));
    expect(groupGone(agentPid)).toBe(false); // --ignore-eof: it would linger forever
    expect(reapOrphans(stateDir)).toEqual([agentPid]);
    expect(await waitFor(() => groupGone(agentPid))).toBe(true);
    expect(readdirSync(join(stateDir, "agents"))).toEqual([]);
  });

  it("leaves agents of a live owner alone and never kills a reused pid", () => {
    const stateDir = tempDir();
    const dir = join(stateDir, "agents");
    mkdirSync(dir, { recursive: true });
    const sleeper = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
    const pid = sleeper.pid!;
    const record = (r: object) =>
      writeFileSync(join(dir, `${pid}.json`), JSON.stringify(r));
    try {
      const startTime = processStartTime(pid)!;
      const me = {
        ownerPid: process.pid,
        ownerStartTime: processStartTime(process.pid)!,
        name: "x",
      };
      record({ pid, startTime, ...me });
      expect(reapOrphans(stateDir)).toEqual([]);
      expect(readdirSync(dir)).toEqual([`${pid}.json`]);
      // Owner gone (its start time no longer matches) and the pid now belongs to another
      // process (start time differs): the stale record goes, the process is not touched.
      record({ pid, startTime: "1", ...me, ownerStartTime: "1" });
      expect(reapOrphans(stateDir)).toEqual([]);
      expect(groupGone(pid)).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      sleeper.kill("SIGKILL");
    }
  });

  it("removes a reaped record's temporary folders, only acphub's own in the temp dir, and nothing else it names that is not still a sandbox's mount point", () => {
    const stateDir = tempDir();
    const dir = join(stateDir, "agents");
    mkdirSync(dir, { recursive: true });
    const own = tempDir("acphub-term-"); // what a sandboxed terminal's TMPDIR looks like
    const notOurs = [
      tempDir("someone-else-"),
      join(tempDir(), "acphub-term-x"),
      join(tempDir(), ".bashrc"), // empty, but writable: not a sandbox's mount point
    ];
    mkdirSync(notOurs[1]!);
    writeFileSync(notOurs[2]!, "", { mode: 0o644 });
    writeFileSync(
      join(dir, "1.json"),
      JSON.stringify({
        pid: 1,
        startTime: "1",
        ownerPid: 1,
        ownerStartTime: "1", // gone
        name: "terminal: sleep",
        leftovers: [own, ...notOurs, "relative/acphub-x", 42],
      }),
    );
    expect(reapOrphans(stateDir)).toEqual([]);
    expect(existsSync(own)).toBe(false);
    for (const path of notOurs) expect(existsSync(path)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });
});
