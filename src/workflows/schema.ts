// The workflow file's schema. Strict like the config: an unknown key is an error, so a typo
// never passes silently. Step kinds are told apart by their one action key.
import { z } from "zod";
import { closest } from "../shared/did-you-mean.js";
import { mcpServerSchema } from "../shared/mcp-servers.js";

const positiveMs = z.number().int().positive();
const stepId = z
  .string()
  .regex(
    /^[A-Za-z][\w-]*$/,
    "a step id is a letter then letters, digits, _ or -",
  );

const onFailure = z.strictObject({
  goto: stepId,
  maxAttempts: z.number().int().min(1).max(100).optional(),
});

const agentFields = {
  agent: z.string().min(1),
  prompt: z.string(),
  mode: z.string().min(1).optional(),
  configOptions: z.record(z.string(), z.string()).optional(),
  mcpServers: z.array(mcpServerSchema).optional(),
};
const common = {
  id: stepId,
  timeoutMs: positiveMs.optional(),
  onFailure: onFailure.optional(),
};

const agentStep = z.strictObject({ ...common, ...agentFields });
const approveStep = z.strictObject({
  id: stepId,
  approve: z.string().min(1),
  timeoutMs: positiveMs.optional(),
});
const runStep = z.strictObject({
  ...common,
  run: z.string().min(1),
  /** The file's author approves this literal command: no permission question for it. */
  preapproved: z.boolean().optional(),
});
const branch = z.strictObject({ id: stepId.optional(), ...agentFields });
const parallelStep = z.strictObject({
  ...common,
  parallel: z.array(branch).min(1).max(16),
});

const ACTIONS = { approve: approveStep, run: runStep, parallel: parallelStep };
const KINDS = { ...ACTIONS, agent: agentStep };

/** Every key a step of any kind may have: what an unknown key is compared with. */
export const STEP_KEYS: readonly string[] = [
  ...new Set(Object.values(KINDS).flatMap((k) => Object.keys(k.shape))),
];

// The schema of a step, chosen by its action key, so errors name the right keys; with no
// action key, by a key that looks like a misspelt one (`aprove:` is checked as a gate).
export function stepSchemaFor(value: unknown) {
  if (value === null || typeof value !== "object") return agentStep;
  const v = value as Record<string, unknown>;
  for (const [key, schema] of Object.entries(ACTIONS))
    if (key in v) return schema;
  if ("agent" in v) return agentStep;
  const kinds = Object.keys(KINDS);
  for (const key of Object.keys(v)) {
    const meant = closest(key, kinds) as keyof typeof KINDS | undefined;
    if (meant) return KINDS[meant];
  }
  return agentStep;
}

export const workflowSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, "a name is lower-case letters, digits and -"),
  description: z.string().optional(),
  input: z
    .strictObject({
      description: z.string().optional(),
      required: z.boolean().optional(),
    })
    .optional(),
  mcpServers: z.array(mcpServerSchema).optional(),
  timeoutMs: positiveMs.optional(),
  steps: z.array(z.unknown()).min(1).max(100),
});

export type AgentStep = z.infer<typeof agentStep>;
export type ApproveStep = z.infer<typeof approveStep>;
export type RunStep = z.infer<typeof runStep>;
export type ParallelStep = z.infer<typeof parallelStep>;
export type ParallelBranch = z.infer<typeof branch>;
export type WorkflowStep = AgentStep | ApproveStep | RunStep | ParallelStep;
export type WorkflowSpec = Omit<z.infer<typeof workflowSchema>, "steps"> & {
  steps: WorkflowStep[];
};

export type StepKind = "agent" | "approve" | "run" | "parallel";

// The kind of a validated step, by its action key.
export function stepKind(step: WorkflowStep): StepKind {
  if ("approve" in step) return "approve";
  if ("run" in step) return "run";
  if ("parallel" in step) return "parallel";
  return "agent";
}

/** How a workflow file is loaded: which names it may use. */
export interface LoadOptions {
  /** True when an agent name can be started (configured or in the registry). */
  knownAgent: (name: string) => boolean;
  /** True when `{{ env.NAME }}` may read NAME. */
  envAllowed: (name: string) => boolean;
  /** The agent names there are, for "did you mean" (optional). */
  agentNames?: () => readonly string[];
}

type Path = (string | number)[];

/** Where a path points in the file, as `file:line:column`. */
export type Locate = (path: Path, key?: string) => string;
