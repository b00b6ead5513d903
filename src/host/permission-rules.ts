// The config's permission rules (`permissions.rules`): which tool kinds, titles and commands a
// rule matches; the first match allows or denies before the mode is asked.

export interface PermissionRule {
  /** Tool kinds (`read`, `edit`, `execute`, …) the rule applies to; all when absent. */
  kind?: string | string[];
  /** Regular expression matched against the tool call's title or a file path. */
  title?: string;
  /** Regular expression matched against the command line. */
  command?: string;
  action: "allow" | "deny";
}

// Whether a rule applies to a tool call of this kind, title and command.
export function ruleMatches(
  rule: PermissionRule,
  kind: string,
  title: string,
  command: string | undefined,
) {
  const kinds = rule.kind === undefined ? undefined : [rule.kind].flat();
  if (kinds && !kinds.includes(kind)) return false;
  if (rule.title !== undefined && !new RegExp(rule.title).test(title))
    return false;
  if (
    rule.command !== undefined &&
    (command === undefined || !new RegExp(rule.command).test(command))
  )
    return false;
  return true;
}
