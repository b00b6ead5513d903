// Decides, once per host, whether terminals run inside the OS sandbox, and wraps each one:
// writes to the session's roots and a private temporary folder, reads all but the denied
// paths (the roots' `.env*` files too, unless allowed), network to the allowed domains only.
import { permissionDenied } from "../../protocol/wire-errors.js";
import { checkSandbox, type WrappedCommand } from "./os-sandbox.js";
import { missingText, readDenials, wrapWithTemp } from "./sandbox-rules.js";
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
    signal?: AbortSignal,
  ): Promise<WrappedCommand | undefined>;
}

// Decides once whether terminals are sandboxed; wraps each one (or refuses, under `os`).
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
      warning: `WARNING: terminals run without an OS sandbox (terminals.sandbox: auto), limited only by the command check, a speed bump, not a boundary — ${missingText(check)}`,
      wrap: none,
    };
  const rules = { ...settings, protect };
  return {
    active: check.available,
    wrap: async (argv, cwd, roots, signal) => {
      if (!check.available)
        throw permissionDenied(`terminal refused: ${missingText(check)}`, {
          reason: "sandbox-unavailable",
        });
      return wrapWithTemp({
        argv,
        cwd,
        writable: roots,
        denyRead: readDenials(rules, roots),
        denyWrite: protect,
        allowedDomains: settings.allowedDomains,
        bwrapPath: settings.bwrapPath,
        prefix: "acphub-term-",
        signal,
      });
    },
  };
}
