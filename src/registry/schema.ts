// The ACP agent registry's format (agentclientprotocol/registry: agent.schema.json and
// registry.schema.json), as acphub reads it. Unknown keys are ignored so a newer registry still
// loads; a known key with the wrong shape refuses the whole file, naming the first bad entry.
import { z } from "zod";
import { HubError } from "../shared/errors.js";

export const PLATFORMS = [
  "darwin-aarch64",
  "darwin-x86_64",
  "linux-aarch64",
  "linux-x86_64",
  "windows-aarch64",
  "windows-x86_64",
] as const;
export type Platform = (typeof PLATFORMS)[number];

const envSchema = z.record(z.string(), z.string());

const binaryTargetSchema = z.object({
  archive: z.url({ protocol: /^(https?|file)$/ }),
  cmd: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: envSchema.optional(),
  /** acphub's extension (private registries): the archive's SHA-256, 64 hex digits. */
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "sha256 must be 64 hex digits")
    .optional(),
});

const packageSchema = z.object({
  package: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: envSchema.optional(),
});

const distributionSchema = z
  .object({
    binary: z
      .partialRecord(z.enum(PLATFORMS), binaryTargetSchema)
      .refine((b) => Object.keys(b).length > 0, "binary lists no platform")
      .optional(),
    npx: packageSchema.optional(),
    uvx: packageSchema.optional(),
  })
  .refine((d) => d.binary || d.npx || d.uvx, {
    message: "distribution needs binary, npx or uvx",
  });

export const registryEntrySchema = z.object({
  id: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, "id must be lowercase letters, digits, -"),
  name: z.string().min(1),
  version: z.string().regex(/^[0-9]+(\.[0-9]+)*/, "version must be x.y.z"),
  description: z.string().min(1),
  repository: z.string().optional(),
  authors: z.array(z.string()).optional(),
  license: z.string().optional(),
  icon: z.string().optional(),
  distribution: distributionSchema,
});

export type RegistryEntry = z.infer<typeof registryEntrySchema>;
export type BinaryTarget = z.infer<typeof binaryTargetSchema>;
export type PackageDistribution = z.infer<typeof packageSchema>;

export interface Registry {
  version: string;
  agents: RegistryEntry[];
}

const topSchema = z.object({
  version: z.string().min(1),
  agents: z.array(z.unknown()),
  extensions: z.array(z.unknown()).optional(),
});

// The first issue of a zod error as `path: message`.
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue?.path.map(String).join(".") ?? "";
  return `${path || "(entry)"}: ${issue?.message ?? "invalid"}`;
}

// Parses a registry.json text from `source`; refuses it whole, naming the first bad entry.
export function parseRegistry(text: string, source: string): Registry {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw invalid(source, `not valid JSON: ${(error as Error).message}`);
  }
  const top = topSchema.safeParse(raw);
  if (!top.success)
    throw invalid(source, `not an ACP registry: ${firstIssue(top.error)}`);
  const agents: RegistryEntry[] = [];
  const seen = new Set<string>();
  for (const [i, item] of top.data.agents.entries()) {
    const parsed = registryEntrySchema.safeParse(item);
    const id = (item as { id?: unknown } | null)?.id;
    const name = typeof id === "string" ? `"${id}"` : `#${i + 1}`;
    if (!parsed.success)
      throw invalid(
        source,
        `agent ${name} (entry ${i + 1}): ${firstIssue(parsed.error)}`,
        i,
      );
    if (seen.has(parsed.data.id))
      throw invalid(source, `agent ${name} (entry ${i + 1}): duplicate id`, i);
    seen.add(parsed.data.id);
    agents.push(parsed.data);
  }
  return { version: top.data.version, agents };
}

function invalid(source: string, message: string, entry?: number): HubError {
  return new HubError("REGISTRY_INVALID", `registry ${source}: ${message}`, {
    details: { source, ...(entry === undefined ? {} : { entry }) },
  });
}
