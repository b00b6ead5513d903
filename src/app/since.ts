// `--since` of `acphub audit` and `acphub usage`, read once: a span back from now or a date.
import { HubError } from "../shared/errors.js";

const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

// A duration back from now (30m, 2h, 7d) or a date (2026-12-01, an ISO time); none: undefined.
export function sinceOf(
  value: string | undefined,
  now = Date.now(),
  flag = "--since",
): number | undefined {
  if (value === undefined) return undefined;
  const ago = /^(\d+)([smhd])$/.exec(value.trim());
  if (ago) return now - Number(ago[1]) * UNIT_MS[ago[2]!]!;
  const at = Date.parse(value);
  if (Number.isNaN(at))
    throw new HubError(
      "USAGE",
      `${flag} ${JSON.stringify(value)}: give a duration back from now (30m, 2h, 7d) or a date (2026-12-01T09:00Z)`,
    );
  return at;
}
