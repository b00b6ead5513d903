// Which `acphub serve` runs on a state folder: it leaves `serve.pid` there (its pid, the
// process's start time and URL) while it runs and removes it when it stops. A file left by a
// killed serve names a process that is gone (or a reused pid with another start time): ignored.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  isAlive,
  isSameProcess,
  processStartTime,
} from "../shared/process-group.js";

interface ServeMark {
  pid: number;
  startTime?: string;
  url: string;
}

function markFile(stateDir: string): string {
  return join(stateDir, "serve.pid");
}

// Marks the state folder as served by this process; the returned function takes the mark away.
export function markServing(stateDir: string, url: string): () => void {
  const file = markFile(stateDir);
  const mark: ServeMark = {
    pid: process.pid,
    startTime: processStartTime(process.pid),
    url,
  };
  try {
    writeFileSync(file, `${JSON.stringify(mark)}\n`, { mode: 0o600 });
  } catch {
    return () => undefined;
  }
  return () => {
    if (runningServe(stateDir)?.pid === process.pid)
      rmSync(file, { force: true });
  };
}

// The `acphub serve` running on this state folder, if one is.
export function runningServe(stateDir: string): ServeMark | undefined {
  let mark: ServeMark;
  try {
    mark = JSON.parse(readFileSync(markFile(stateDir), "utf8")) as ServeMark;
  } catch {
    return undefined;
  }
  if (!Number.isSafeInteger(mark.pid) || mark.pid <= 0) return undefined;
  const alive =
    mark.startTime === undefined
      ? isAlive(mark.pid)
      : isSameProcess(mark.pid, mark.startTime);
  return alive ? mark : undefined;
}
