// Decides, once per host, whether terminals run inside the OS sandbox, and wraps each one:
// writes to the session's roots and a private temporary folder, reads all but the denied
// paths (the roots' `.env*` files too, unless allowed), network to the allowed domains only.
import { mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { quote } from "shell-quote";
import { permissionDenied } from "../../protocol/wire-errors.js";
import {
  checkSandbox,
  wrapInSandbox,
  type SandboxCheck,
  type WrappedCommand,
} from "./os-sandbox.js";
import type { SandboxSettings } from "./settings.js";

export interface TerminalSandbox {
  /** True when terminals run inside the OS sandbox. */
  readonly active: boolean;
  /** The one-line warning for `auto` without a sandbox, else undefined. */
  readonly warning?: string;
  /** Refuses (mode `os` without a sandbox) or wraps the argv; undefined means run it as is. */
  wrap(
    argv: { command: string; args: readonly string[] },
    cwd: string,
    roots: readonly string[],
  ): Promise<WrappedCommand | undefined>;
}

// What to install, as one sentence for an error or a warning.
export function missingText(check: SandboxCheck): string {
  return `the OS sandbox is not available: missing ${check.missing.join(", ")}; install them (apt-get install bubblewrap socat ripgrep)`;
}

// `~/x` in a rule means the user's home folder.
export function expandHome(path: string, home = homedir()): string {
  return path === "~"
    ? home
    : path.startsWith("~/")
      ? join(home, path.slice(2))
      : path;
}

export function terminalSandbox(
  settings: SandboxSettings,
  /** Paths denied besides the settings' (acphub's state folder and config). */
  protect: readonly string[] = [],
): TerminalSandbox {
  const none = () => Promise.resolve(undefined);
  if (settings.mode === "off") return { active: false, wrap: none };
  const check = checkSandbox(settings.bwrapPath);
  if (!check.available && settings.mode === "auto")
    return {
      active: false,
      warning: `warning: terminals run without an OS sandbox — ${missingText(check)}`,
      wrap: none,
    };
  const denyRead = [...settings.denyRead.map((p) => expandHome(p)), ...protect];
  return {
    active: check.available,
    wrap: async (argv, cwd, roots) => {
      if (!check.available)
        throw permissionDenied(`terminal refused: ${missingText(check)}`, {
          reason: "sandbox-unavailable",
        });
      const tmp = mkdtempSync(join(tmpdir(), "acphub-term-"));
      const envFiles = settings.allowEnvFiles
        ? []
        : roots.map((r) => join(r, "**/.env*"));
      try {
        const wrapped = await wrapInSandbox({
          script: `export TMPDIR=${quote([tmp])}; exec ${quote([argv.command, ...argv.args])}`,
          cwd,
          writable: [...roots, tmp],
          denyRead: [...denyRead, ...envFiles],
          allowedDomains: settings.allowedDomains,
          bwrapPath: settings.bwrapPath,
        });
        return {
          ...wrapped,
          release: () => {
            wrapped.release();
            rmSync(tmp, { recursive: true, force: true });
          },
        };
      } catch (error) {
        rmSync(tmp, { recursive: true, force: true });
        throw error;
      }
    },
  };
}
