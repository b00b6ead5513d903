// How a registry entry launches: npx (package@version, pinned), uvx, or a binary for this
// platform. npx comes first (npm checks what it downloads), then uvx, then binary.
import { HubError } from "../shared/errors.js";
import { packageBaseName } from "./find.js";
import { currentPlatform } from "./platform.js";
import type {
  BinaryTarget,
  PackageDistribution,
  RegistryEntry,
} from "./schema.js";

export type Distribution = "npx" | "uvx" | "binary";

export interface LaunchPlan {
  id: string;
  version: string;
  distribution: Distribution;
  /** npx/uvx: the command; binary: the cmd inside the unpacked folder. */
  command: string;
  args: string[];
  env: Record<string, string>;
  /** binary only: the platform's target (archive, cmd, sha256). */
  binary?: BinaryTarget & { platform: string };
}

// `@scope/name` pinned at `version`, whatever version the spec named.
function pinned(spec: string, version: string, separator: string): string {
  const scope = spec.startsWith("@")
    ? spec.slice(0, spec.indexOf("/") + 1)
    : "";
  return `${scope}${packageBaseName(spec)}${separator}${version}`;
}

// The spec's own version (`name@1.2.3`, `name==1.2.3`), if it names one.
function specVersion(spec: string): string | undefined {
  const rest = spec.slice(spec.startsWith("@") ? 1 : 0);
  return /(?:@|==)([^@=]+)$/.exec(rest)?.[1];
}

function packagePlan(
  entry: RegistryEntry,
  kind: "npx" | "uvx",
  dist: PackageDistribution,
  requested?: string,
): LaunchPlan {
  const version = requested ?? specVersion(dist.package) ?? entry.version;
  const spec = pinned(dist.package, version, kind === "npx" ? "@" : "==");
  const args =
    kind === "npx"
      ? ["-y", spec, ...(dist.args ?? [])]
      : [spec, ...(dist.args ?? [])];
  return {
    id: entry.id,
    version,
    distribution: kind,
    command: kind,
    args,
    env: dist.env ?? {},
  };
}

// The plan for `entry` at `requested` (default: the registry's version).
export function planLaunch(
  entry: RegistryEntry,
  requested?: string,
): LaunchPlan {
  const { npx, uvx, binary } = entry.distribution;
  if (npx) return packagePlan(entry, "npx", npx, requested);
  if (uvx) return packagePlan(entry, "uvx", uvx, requested);
  const platform = currentPlatform();
  const target = platform ? binary?.[platform] : undefined;
  if (!target)
    throw new HubError(
      "UNSUPPORTED",
      `registry agent "${entry.id}" has no build for this platform (${platform ?? `${process.platform}-${process.arch}`}); it has ${Object.keys(binary ?? {}).join(", ")}`,
    );
  if (requested && requested !== entry.version)
    throw new HubError(
      "UNSUPPORTED",
      `registry agent "${entry.id}" is a binary listed at version ${entry.version} only; its archive for ${requested} is not in the registry`,
      { details: { id: entry.id, available: entry.version, requested } },
    );
  return {
    id: entry.id,
    version: entry.version,
    distribution: "binary",
    command: target.cmd,
    args: target.args ?? [],
    env: target.env ?? {},
    binary: { ...target, platform: platform! },
  };
}
