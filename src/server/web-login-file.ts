// The web page's logins of a single hub (contracts/web-logins.ts): browser sessions in the state
// folder's `web-sessions.json` (hashed, so that a restart does not log browsers out; the format
// of before issue 38, so their logins keep working), codes in this process only (a printed code
// dies with it). The nodes of a cluster keep them in PostgreSQL instead; a hub that moves to it
// brings this file's sessions along once (`movedInto`).
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type {
  WebLogin,
  WebLoginKind,
  WebLoginStore,
} from "../contracts/web-logins.js";

/** Bounds on outstanding codes and browser sessions (oldest dropped first). */
const MAX_CODES = 64;
const MAX_SESSIONS = 256;
const FILE = "web-sessions.json";

export class FileWebLogins implements WebLoginStore {
  private readonly codes = new Map<string, WebLogin>();
  private readonly sessions: Map<string, WebLogin>;
  private readonly file?: string;

  /** Without a folder the sessions are kept in memory only. */
  constructor(stateDir?: string, now = Date.now()) {
    this.file = stateDir ? join(stateDir, FILE) : undefined;
    this.sessions = load(this.file, now);
  }

  private mapOf(kind: WebLoginKind): Map<string, WebLogin> {
    return kind === "code" ? this.codes : this.sessions;
  }

  put(kind: WebLoginKind, keyHash: string, login: WebLogin): Promise<void> {
    const map = this.mapOf(kind);
    map.set(keyHash, login);
    const max = kind === "code" ? MAX_CODES : MAX_SESSIONS;
    while (map.size > max) map.delete(map.keys().next().value as string);
    if (kind === "session") this.save();
    return Promise.resolve();
  }

  get(kind: WebLoginKind, keyHash: string, now: number) {
    const login = this.mapOf(kind).get(keyHash);
    return Promise.resolve(login && login.expiresAt > now ? login : undefined);
  }

  async take(kind: WebLoginKind, keyHash: string, now: number) {
    const login = await this.get(kind, keyHash, now);
    await this.delete(kind, keyHash);
    return login;
  }

  delete(kind: WebLoginKind, keyHash: string): Promise<void> {
    if (this.mapOf(kind).delete(keyHash) && kind === "session") this.save();
    return Promise.resolve();
  }

  deleteUser(user: string): Promise<void> {
    for (const kind of ["code", "session"] as const)
      for (const [key, login] of this.mapOf(kind))
        if (login.user === user) void this.delete(kind, key);
    return Promise.resolve();
  }

  /** Moves the file's browser sessions into the cluster's store, once (the file is renamed). */
  async movedInto(store: WebLoginStore): Promise<void> {
    if (!this.file || this.sessions.size === 0) return;
    for (const [key, login] of this.sessions)
      await store.put("session", key, login);
    renameSync(this.file, `${this.file}.moved`);
  }

  private save(): void {
    if (!this.file) return;
    const tmp = `${this.file}.${process.pid}.tmp`;
    const data = Object.fromEntries(
      [...this.sessions].map(([k, g]) => [
        k,
        { e: g.expiresAt, u: g.user, s: g.stamp },
      ]),
    );
    writeFileSync(tmp, JSON.stringify(data), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}

// The file's unexpired sessions; none when it is missing or unreadable.
function load(file: string | undefined, now: number): Map<string, WebLogin> {
  if (!file) return new Map();
  try {
    const data = JSON.parse(readFileSync(file, "utf8")) as unknown;
    // A session without a stamp is from before issue 34: dropped (its browser logs in again).
    return new Map(
      Object.entries(data as Record<string, unknown>)
        .map(([k, v]): [string, WebLogin | undefined] => [k, loginOf(v)])
        .filter(
          (entry): entry is [string, WebLogin] =>
            /^[0-9a-f]{64}$/.test(entry[0]) &&
            entry[1] !== undefined &&
            entry[1].expiresAt > now,
        ),
    );
  } catch {
    return new Map();
  }
}

// A stored browser session, when it has the expected shape.
function loginOf(v: unknown): WebLogin | undefined {
  const g = v as { e?: unknown; u?: unknown; s?: unknown } | null;
  return g &&
    typeof g.e === "number" &&
    typeof g.u === "string" &&
    typeof g.s === "string"
    ? { expiresAt: g.e, user: g.u, stamp: g.s }
    : undefined;
}
