// Where `setpriv --pdeathsig` is missing, nothing ties the sandbox runtime's socat bridges
// (children of acphub, in its process group) to acphub's life: a kill -9 would leave them
// running. They are then recorded like terminals, for the orphan reaper of the next acphub.
// The runtime is one per process, and so are these records.
import { readdirSync, readFileSync } from "node:fs";
import type { ProcessRecorder } from "../terminals.js";

let recorder: ProcessRecorder | undefined;
/** Bridges running unguarded (no death signal), recorded once a recorder is known. */
let unguarded: number[] = [];
let recorded: number[] = [];

// Records the unguarded bridges not yet recorded.
function recordAll(): void {
  if (!recorder) return;
  for (const pid of unguarded.filter((p) => !recorded.includes(p))) {
    recorder.record(pid, "sandbox network bridge (socat)");
    recorded.push(pid);
  }
}

/** Where bridge pids are recorded (the host's recorder); the first one set is kept. */
export function recordBridgesWith(r: ProcessRecorder): void {
  recorder ??= r;
  recordAll();
}

/** The runtime started its bridges on these sockets without a death signal: record them. */
export function bridgesStarted(socketPaths: readonly string[]): void {
  unguarded = bridgePids(socketPaths);
  recordAll();
}

/** The runtime stopped its bridges: their records go. */
export function bridgesStopped(): void {
  for (const pid of recorded) recorder?.forget(pid);
  recorded = [];
  unguarded = [];
}

// acphub's child processes listening on one of these sockets (the runtime keeps no pid list).
function bridgePids(socketPaths: readonly string[]): number[] {
  const listens = socketPaths.map((p) => `UNIX-LISTEN:${p},`);
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== process.pid) continue;
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv.some((a) => listens.some((l) => a.startsWith(l))))
        pids.push(Number(entry));
    } catch {
      continue; // gone meanwhile
    }
  }
  return pids;
}
