// Process identity and process-group signals: a pid plus its start time (Linux), so a reused
// pid is never mistaken for the process acphub started; and killing a whole group.
import { readFileSync } from "node:fs";

// Field 22 of /proc/PID/stat (start time in clock ticks since boot); undefined when unknown.
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19];
  } catch {
    return undefined;
  }
}

// True when a process with this pid exists (signal 0 probes without sending anything).
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

// True when `pid` is alive and is the same process that had `startTime`.
export function isSameProcess(
  pid: number,
  startTime: string | undefined,
): boolean {
  if (!isAlive(pid)) return false;
  const now = processStartTime(pid);
  return now !== undefined && startTime !== undefined && now === startTime;
}

// Signals a whole process group, falling back to the single process.
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}
