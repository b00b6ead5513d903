// The read/write policy for every path an agent names, in every sandbox and permission mode:
// the same rules the OS sandbox applies (sandbox-rules.ts) — credential paths and the user's
// `denyRead`, acphub's state and config, the roots' `.env*` files, keys and certificates by name
// (`denyNames`) — checked on real paths.
import { realpath } from "node:fs/promises";
import { basename, relative, sep } from "node:path";
import { permissionDenied } from "../protocol/wire-errors.js";
import {
  isEnvFile,
  pathRules,
  secretName,
  type PathRule,
  type ReadRules,
} from "./sandbox/sandbox-rules.js";
import { within } from "./sandbox-path.js";

/** Throws a refusal naming the rule and the path when `real` (inside `root`) is denied. */
export type PathCheck = (
  real: string,
  root: string,
  asked: string,
) => Promise<void>;

// A rule's path and, when it exists, its real path (a rule on a link covers the target too).
async function spellings(rule: PathRule): Promise<PathRule[]> {
  try {
    const real = await realpath(rule.path);
    return real === rule.path ? [rule] : [rule, { ...rule, path: real }];
  } catch {
    return [rule];
  }
}

// The refusal for a denied path: which rule, which path, how to allow it if one can.
function refused(rule: string, asked: string, real: string, how: string) {
  const shown = asked === real ? asked : `${asked} (${real})`;
  return permissionDenied(`refused by rule "${rule}": ${shown} — ${how}`, {
    reason: rule,
    path: asked,
    resolved: real,
  });
}

// Builds the check from the same settings the OS sandbox is built from.
export function pathPolicy(rules: ReadRules): PathCheck {
  const list = pathRules(rules);
  const secret = secretName(rules);
  return async (real, root, asked) => {
    for (const rule of (await Promise.all(list.map(spellings))).flat()) {
      if (!within(real, rule.path)) continue;
      const how =
        rule.rule === "deny-read"
          ? `a credential path denied by terminals.denyRead (${rule.path})`
          : `acphub's own state and config are never readable or writable by agents (${rule.path})`;
      throw refused(rule.rule, asked, real, how);
    }
    if (secret(basename(real)))
      throw refused(
        "secret-file",
        asked,
        real,
        `keys and certificates by name are denied (terminals.denyNames: ${(rules.denyNames ?? []).join(", ")})`,
      );
    if (rules.allowEnvFiles) return;
    const inside = relative(root, real).split(sep);
    if (inside.some(isEnvFile))
      throw refused(
        "env-file",
        asked,
        real,
        "the roots' .env* files are denied unless terminals.allowEnvFiles is true",
      );
  };
}
