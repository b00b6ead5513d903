// No orphans even after `kill -9` of acphub: each live agent (and each terminal's process
// group) is recorded under the state folder with its owner, and a later acphub reaps those
// whose owner is gone, with what they left (a sandboxed command's TMPDIR, the empty mount
// points its sandbox made).
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type { Logger } from "../shared/logger.js";
import {
  isSameProcess,
  killGroup,
  processStartTime,
} from "../shared/process-group.js";
import { removeMountLeftovers } from "../shared/mount-leftovers.js";

interface AgentRecord {
  pid: number;
  startTime: string;
  ownerPid: number;
  ownerStartTime: string;
  name: string;
  /** What the process leaves (its temporary folders, a sandbox's mount points), removed when
   *  it is reaped. */
  leftovers?: string[];
}

// Only acphub's own temporary folders are ever removed from a record (a record is a file anyone
// with the state folder could write).
const isOwnTemp = (path: string) =>
  isAbsolute(path) &&
  dirname(path) === resolve(tmpdir()) &&
  /^acphub-[\w-]+$/.test(basename(path));

const ownerStartTime = processStartTime(process.pid);

function recordsDir(stateDir: string): string {
  return join(stateDir, "agents");
}

// Records a freshly spawned agent; a no-op where start times cannot be read (non-Linux).
export function recordAgent(
  stateDir: string,
  pid: number,
  name: string,
  leftovers?: string[],
): void {
  const startTime = processStartTime(pid);
  if (startTime === undefined || ownerStartTime === undefined) return;
  const record: AgentRecord = {
    pid,
    startTime,
    ownerPid: process.pid,
    ownerStartTime,
    name,
    ...(leftovers?.length ? { leftovers } : {}),
  };
  mkdirSync(recordsDir(stateDir), { recursive: true });
  writeFileSync(
    join(recordsDir(stateDir), `${pid}.json`),
    JSON.stringify(record),
  );
}

export function forgetAgent(stateDir: string, pid: number): void {
  rmSync(join(recordsDir(stateDir), `${pid}.json`), { force: true });
}

function readRecord(file: string): AgentRecord | undefined {
  try {
    const value = JSON.parse(
      readFileSync(file, "utf8"),
    ) as Partial<AgentRecord>;
    const ok =
      typeof value.pid === "number" &&
      typeof value.ownerPid === "number" &&
      typeof value.startTime === "string" &&
      typeof value.ownerStartTime === "string";
    return ok ? (value as AgentRecord) : undefined;
  } catch {
    return undefined;
  }
}

// A record's leftovers: acphub's own temporary folders go whole; anything else only while it
// is what bubblewrap made (a sandbox's mount point, shared/mount-leftovers.ts).
function removeLeftovers(leftovers: unknown): void {
  const paths = (Array.isArray(leftovers) ? leftovers : []).filter(
    (p): p is string => typeof p === "string",
  );
  for (const dir of paths.filter(isOwnTemp))
    rmSync(dir, { recursive: true, force: true });
  removeMountLeftovers(paths.filter((p) => !isOwnTemp(p)));
}

// Kills recorded agents whose owner is gone (checking start times, so a reused pid is never
// killed) and drops stale records. Returns the pids it killed.
export function reapOrphans(stateDir: string, logger?: Logger): number[] {
  let files: string[];
  try {
    files = readdirSync(recordsDir(stateDir)).filter((f) =>
      f.endsWith(".json"),
    );
  } catch {
    return [];
  }
  const killed: number[] = [];
  for (const file of files) {
    const path = join(recordsDir(stateDir), file);
    const record = readRecord(path);
    if (record && isSameProcess(record.ownerPid, record.ownerStartTime))
      continue;
    if (record && isSameProcess(record.pid, record.startTime)) {
      logger?.warn(
        { pid: record.pid, agent: record.name },
        "reaping orphaned process",
      );
      killGroup(record.pid, "SIGKILL");
      killed.push(record.pid);
    }
    removeLeftovers(record?.leftovers);
    rmSync(path, { force: true });
  }
  return killed;
}
