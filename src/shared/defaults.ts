// Merges overrides onto defaults, ignoring keys whose value is undefined (an absent config key
// must not erase a default).
export function withDefaults<T extends object>(
  defaults: T,
  overrides: Partial<T> | undefined,
): T {
  const out = { ...defaults };
  for (const [key, value] of Object.entries(overrides ?? {})) {
    if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}
