// The folders each user of a hub may open sessions in (`users.roots`): a member's cwd and
// additional folders must lie inside their roots, real paths compared (symlinks and `..`
// resolved); nobody's may be `/`, the hub's $HOME (or a folder holding it), a protected path
// (state folder, token, TLS files, config, ledger) or a folder holding one.
import { mkdirSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, resolve, sep } from "node:path";
import type { HubUser } from "../contracts/users.js";
import { HubError } from "../shared/errors.js";
import { realPathOf, within } from "./sandbox-path.js";

/** The members' folders when `users.roots` names none: one per user, made on first use (0700). */
export const DEFAULT_USER_ROOT = "{stateDir}-workspaces/{user}";

export interface RootsPolicy {
  /** `users.roots`: user name, role or `*` → folders (`{user}`, `{stateDir}` replaced). */
  patterns?: Record<string, readonly string[]>;
  stateDir: string;
  /** Paths never reachable: the state folder, token, TLS files, config, ledger. */
  protect: readonly string[];
  /** The hub process's home folder. */
  home: string;
}

/** The folders a session opens with, as a client or the ledger gives them. */
export interface OpenFolders {
  cwd: unknown;
  additionalDirectories?: unknown;
}

// A path and its real path (when it exists): a rule on a link covers where it leads too.
function spellingsOf(path: string): string[] {
  const plain = resolve(path);
  try {
    const real = realpathSync(plain);
    return real === plain ? [plain] : [plain, real];
  } catch {
    return [plain];
  }
}

export class UserRoots {
  private readonly protect: string[];
  private readonly homes: string[];

  constructor(private readonly policy: RootsPolicy) {
    this.protect = policy.protect.flatMap(spellingsOf);
    this.homes = spellingsOf(policy.home);
  }

  // Why a real folder can never be a root or a session's folder, or undefined when it can.
  // `inside`: also a folder inside a protected path (an admin's session may sit there: every
  // file in it is refused by the file and sandbox rules all the same).
  neverRoot(real: string, inside = true): string | undefined {
    if (real === sep) return "the file system's root is never a session folder";
    const home = this.homes.find((h) => within(h, real));
    if (home)
      return `the hub's home folder (${home}) and the folders holding it are never session folders`;
    // A folder inside a protected one holds only what the file rules refuse anyway.
    if (!inside && this.protect.some((p) => within(real, p))) return undefined;
    for (const p of this.protect) {
      if (within(p, real))
        return `it holds ${p}, which agents may never reach (acphub's state, token, TLS key, config or ledger)`;
      if (inside && within(real, p))
        return `it is inside ${p}, which agents may never reach (acphub's state, token, TLS key, config or ledger)`;
    }
    return undefined;
  }

  // The configured entry for a user (name, then role, then `*`); undefined: an admin without one.
  private patternsOf(user: HubUser | undefined): readonly string[] | undefined {
    const p = this.policy.patterns ?? {};
    if (!user) return p["admin"];
    const own = p[user.name] ?? p[user.role];
    if (own || user.role === "admin") return own;
    return p["*"] ?? [DEFAULT_USER_ROOT];
  }

  // A user's roots as real folders (made when a pattern names the user); undefined: anywhere.
  async rootsOf(user: HubUser | undefined): Promise<string[] | undefined> {
    const patterns = this.patternsOf(user);
    if (!patterns) return undefined;
    const roots: string[] = [];
    for (const pattern of patterns)
      roots.push(await this.rootFrom(pattern, user));
    return roots;
  }

  // One pattern as the user's real folder, refused with a message when it may not be a root.
  private async rootFrom(
    pattern: string,
    user: HubUser | undefined,
  ): Promise<string> {
    const name = user?.name ?? "admin";
    const perUser = pattern.includes("{user}");
    if (perUser && (!/^[^/\\\0]+$/.test(name) || name === "." || name === ".."))
      throw folderError(
        `the user name ${JSON.stringify(name)} cannot name a folder`,
      );
    const path = pattern
      .replaceAll("{user}", name)
      .replaceAll("{stateDir}", this.policy.stateDir);
    if (!isAbsolute(path))
      throw folderError(
        `users.roots: ${JSON.stringify(pattern)} is not an absolute path`,
      );
    if (perUser) mkdirSync(path, { recursive: true, mode: 0o700 });
    const { real } = await realPathOf(path);
    const why = this.neverRoot(real);
    if (why) throw folderError(`users.roots: ${path} cannot be a root: ${why}`);
    return real;
  }

  // Refuses a session whose folders are not all inside the user's roots (or never roots).
  // Without a user only the never-roots rule applies (a session shared with the caller).
  async check(folders: OpenFolders, user?: HubUser | null): Promise<void> {
    const roots = user === null ? undefined : await this.rootsOf(user);
    for (const folder of foldersOf(folders)) {
      const { real } = await realPathOf(folder);
      const shown = real === folder ? folder : `${folder} (${real})`;
      const why = this.neverRoot(real, roots !== undefined);
      if (why) throw folderError(`the folder ${shown} is refused: ${why}`);
      if (roots && !roots.some((r) => within(real, r)))
        throw folderError(
          `the folder ${shown} is outside your folders (${roots.join(", ")}); an admin sets them in users.roots`,
        );
    }
  }

  // The folders under which members work: their sessions get no extra roots (fs.roots).
  memberBases(): string[] {
    const patterns = Object.values(this.policy.patterns ?? {}).flat();
    return [...patterns, DEFAULT_USER_ROOT].flatMap((pattern) => {
      const at = pattern.replaceAll("{stateDir}", this.policy.stateDir);
      const cut = at.indexOf("{user}");
      return spellingsOf(cut < 0 ? at : dirname(at.slice(0, cut + 1)));
    });
  }

  // Refuses, at start, configured roots that can never be roots (those without `{user}`).
  async checkConfigured(fsRoots: readonly string[] = []): Promise<void> {
    const fixed = Object.values(this.policy.patterns ?? {})
      .flat()
      .filter((p) => !p.includes("{user}"));
    for (const pattern of [...fixed, ...fsRoots]) {
      const path = pattern.replaceAll("{stateDir}", this.policy.stateDir);
      const why = this.neverRoot((await realPathOf(resolve(path))).real);
      if (why)
        throw new HubError(
          "CONFIG_INVALID",
          `${pattern} cannot be a root: ${why}`,
        );
    }
  }
}

// The cwd and additional folders of a request; anything but absolute paths is refused.
function foldersOf(folders: OpenFolders): string[] {
  const extra = folders.additionalDirectories ?? [];
  if (!Array.isArray(extra))
    throw folderError(
      "additionalDirectories must be a list of absolute folders",
    );
  const all = [folders.cwd, ...(extra as unknown[])];
  for (const f of all)
    if (typeof f !== "string" || !isAbsolute(f) || f.includes("\0"))
      throw folderError(
        `a session folder must be an absolute path: ${JSON.stringify(f)}`,
      );
  return all as string[];
}

// The error a refused folder gets on the wire: a clear PERMISSION_DENIED.
function folderError(message: string): HubError {
  return new HubError("PERMISSION_DENIED", message, {
    details: { reason: "folder" },
  });
}
