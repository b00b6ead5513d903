// The folders of a hub's users (issue 34): the paths no agent may reach (state, config, token,
// TLS files, ledger), `users.roots` checked at start, and the checks serve's hub and hosts use.
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import type { AppContext } from "../config/context.js";
import type { HubUser } from "../contracts/users.js";
import type { FolderCheck } from "../hub/session-folder.js";
import { within } from "../host/sandbox-path.js";
import { UserRoots } from "../host/user-roots.js";
import { ledgerUrl } from "./wiring.js";

/** The files `acphub serve` was given that agents must never reach. */
export interface ServeFiles {
  tokenFile?: string;
  tlsCert?: string;
  tlsKey?: string;
}

export interface HubFolders {
  /** Paths nothing may reach besides the state folder and config file. */
  protect: string[];
  /** session/new, load, resume and fork: folders inside the user's roots. */
  check: FolderCheck;
  /** Whether a session with this cwd gets fs.roots: not when it lies in members' folders. */
  rootsWhen: (cwd: string) => boolean;
  /** The folder a user's new session starts in unless they name one: their first root. */
  defaultFolder: (user: HubUser | undefined) => Promise<string>;
}

// The SQLite ledger's files when the ledger is one (a PostgreSQL URL has none here).
function ledgerFiles(ctx: AppContext): string[] {
  const url = ledgerUrl(ctx);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || !isAbsolute(resolve(url)))
    return [];
  const file = resolve(url);
  return [file, `${file}-wal`, `${file}-shm`, `${file}-journal`];
}

// Builds the hub's folder rules; refuses (CONFIG_INVALID) configured roots that can never be.
export async function hubFolders(
  ctx: AppContext,
  files: ServeFiles = {},
): Promise<HubFolders> {
  const { config, paths } = ctx;
  const given = [files.tokenFile, files.tlsCert, files.tlsKey];
  const protect = [
    ...given.filter((f): f is string => !!f).map((f) => resolve(f)),
    ...ledgerFiles(ctx),
  ];
  const roots = new UserRoots({
    patterns: config.users?.roots,
    stateDir: paths.stateDir,
    protect: [paths.stateDir, paths.configFile, ...protect],
    home: homedir(),
  });
  await roots.checkConfigured(config.fs?.roots);
  const bases = roots.memberBases();
  return {
    protect,
    check: (folders, user) => roots.check(folders, user),
    defaultFolder: async (user) =>
      (await roots.rootsOf(user))?.[0] ?? process.cwd(),
    rootsWhen: (cwd) => {
      let real = cwd;
      try {
        real = realpathSync(cwd);
      } catch {
        // a folder that went away: compared as written
      }
      return !bases.some((b) => within(real, b));
    },
  };
}
