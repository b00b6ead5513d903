// The machine's processes as /proc shows them (Linux): for tests that check nothing acphub
// started outlives it, and a PATH that lacks one program (a system without it).
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { delimiter, join } from "node:path";
import { tempDir } from "./mock.js";

export interface Proc {
  pid: number;
  ppid: number;
  live: boolean;
  cmd: string;
}

// Every process on the machine with its parent and command line.
export function processes(): Proc[] {
  const all: Proc[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      all.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        live: fields[0] !== "Z",
        cmd: cmd.replace(/\0/g, " ").trim(),
      });
    } catch {
      // gone
    }
  }
  return all;
}

// True when `pid` has exited and waits to be collected.
export function zombie(pid: number): boolean {
  return processes().some((p) => p.pid === pid && !p.live);
}

// The live descendants of `root` (children, their children, ...).
export function descendants(root: number): Proc[] {
  const all = processes();
  const found: Proc[] = [];
  let parents = new Set([root]);
  while (parents.size > 0) {
    const next = all.filter((p) => parents.has(p.ppid));
    found.push(...next.filter((p) => p.live));
    parents = new Set(next.map((p) => p.pid));
  }
  return found;
}

/** A PATH of one folder linking every program on this PATH except `program`. */
export function pathWithout(program: string): string {
  const dir = join(tempDir("acphub-path-"), "bin");
  mkdirSync(dir);
  const seen = new Set([program]);
  for (const from of (process.env["PATH"] ?? "").split(delimiter)) {
    let names: string[];
    try {
      names = readdirSync(from);
    } catch {
      continue;
    }
    for (const name of names.filter((n) => !seen.has(n))) {
      seen.add(name);
      symlinkSync(join(from, name), join(dir, name));
    }
  }
  return dir;
}
