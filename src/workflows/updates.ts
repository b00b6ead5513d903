// The session/update notifications a run shows its client: the plan of steps, one tool call
// per step, and the step agents' own updates marked with their step.
import type { RawSessionUpdate } from "../contracts/events.js";
import { stepKind, type WorkflowStep } from "./schema.js";
import { render, type TemplateScope } from "./templates.js";
import { ownMetaOf, withOwnMeta } from "../shared/hub-extension.js";

export type PlanState =
  "pending" | "in_progress" | "completed" | "failed" | "skipped";

// A step's display title: `fix · codex`, `test · npm test`, `confirm · approval`; a shell
// step's command as written, or as `command` when it was rendered.
export function stepTitle(step: WorkflowStep, command?: string): string {
  if ("approve" in step) return `${step.id} · approval`;
  if ("run" in step)
    return `${step.id} · ${(command ?? step.run).split("\n")[0]!.slice(0, 60)}`;
  if ("parallel" in step)
    return `${step.id} · ${step.parallel.map((b) => b.agent).join(" + ")}`;
  return `${step.id} · ${step.agent}`;
}

// The title a step shows once it starts: its templates rendered from the run as it stands
// (a step not run yet gives status `pending` and an empty output, an unset variable nothing).
export function startedTitle(step: WorkflowStep, scope: TemplateScope): string {
  return stepTitle(step, "run" in step ? render(step.run, scope) : undefined);
}

// A parallel branch's step id: `review.1`, or `review.lint` when the branch names itself.
export function branchStepId(
  parentId: string,
  branch: { id?: string },
  index: number,
): string {
  return `${parentId}.${branch.id ?? String(index + 1)}`;
}

// What a person reads for a step or branch id: `look · mock`, `review.1 · codex`.
export function stepLabel(
  steps: readonly WorkflowStep[],
  stepId: string,
): string {
  for (const step of steps) {
    if (step.id === stepId) return stepTitle(step);
    if (!("parallel" in step)) continue;
    const index = step.parallel.findIndex(
      (b, i) => branchStepId(step.id, b, i) === stepId,
    );
    if (index >= 0) return `${stepId} · ${step.parallel[index]!.agent}`;
  }
  return stepId;
}

const KIND = {
  agent: "think",
  approve: "other",
  run: "execute",
  parallel: "think",
} as const;

export function stepToolCallId(runId: string, stepId: string): string {
  return `${runId}/${stepId}`;
}

// The plan update: every step with its state (failed and skipped shown in the text), titled
// as it started (a step not started yet as written).
export function planUpdate(
  steps: WorkflowStep[],
  states: Map<string, PlanState>,
  titles: ReadonlyMap<string, string> = new Map(),
) {
  return {
    sessionUpdate: "plan",
    entries: steps.map((step) => {
      const state = states.get(step.id) ?? "pending";
      const extra =
        state === "failed" || state === "skipped" ? ` (${state})` : "";
      return {
        content: (titles.get(step.id) ?? stepTitle(step)) + extra,
        priority: "medium",
        status: state === "failed" || state === "skipped" ? "completed" : state,
      };
    }),
  };
}

// A step's tool call as it starts; `earlier` marks a step a resumed run takes from its journal
// (it finished in an earlier attempt): its final status at once, and `doneEarlier` in _meta.
export function stepToolCall(
  runId: string,
  step: WorkflowStep,
  title: string,
  text?: string,
  earlier?: { ok: boolean },
) {
  return {
    sessionUpdate: "tool_call",
    toolCallId: stepToolCallId(runId, step.id),
    title,
    kind: KIND[stepKind(step)],
    status: earlier ? (earlier.ok ? "completed" : "failed") : "in_progress",
    ...(text === undefined ? {} : { content: [textContent(text)] }),
    _meta: { acphub: stepMeta(step.id, earlier !== undefined) },
  };
}

export function stepToolCallEnd(
  runId: string,
  step: WorkflowStep,
  ok: boolean,
  output: string,
  earlier = false,
) {
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: stepToolCallId(runId, step.id),
    status: ok ? "completed" : "failed",
    content: [textContent(output)],
    _meta: { acphub: stepMeta(step.id, earlier) },
  };
}

// The step mark of a step's updates, with `doneEarlier` when the journal answered for it.
function stepMeta(step: string, earlier: boolean) {
  return earlier ? { step, doneEarlier: true } : { step };
}

function textContent(text: string) {
  return { type: "content", content: { type: "text", text } };
}

const RELAYED = new Set([
  "agent_message_chunk",
  "agent_thought_chunk",
  "tool_call",
  "tool_call_update",
]);

// A step agent's update as the run's client sees it: marked with the step, tool call ids
// prefixed by the step id; updates about the step's own session (plans, commands) stay there.
export function stepAgentUpdate(
  stepId: string,
  update: RawSessionUpdate,
): Record<string, unknown> | undefined {
  const u = update as Record<string, unknown>;
  if (!RELAYED.has(String(u["sessionUpdate"]))) return undefined;
  const out: Record<string, unknown> = { ...u, _meta: withStep(u, stepId) };
  if (typeof u["toolCallId"] === "string")
    out["toolCallId"] = `${stepId}/${u["toolCallId"]}`;
  return out;
}

type Meta = Record<string, unknown>;
interface PermissionLike {
  toolCall: { toolCallId: string };
  _meta?: Meta | null;
}

// The record's `_meta` with `acphub.step` set (the rest kept).
function withStep(record: { _meta?: unknown }, stepId: string): Meta {
  return withOwnMeta(record._meta, { step: stepId });
}

// A step agent's permission request marked with its step, so the edge that asks the run's
// client knows which step's tool call it is (the agent's own ids are kept for the policy).
export function markStepRequest<T extends PermissionLike>(
  stepId: string,
  request: T,
): T {
  return { ...request, _meta: withStep(request, stepId) };
}

// The permission request as the run's client sees it: a step agent's tool call id prefixed
// by its step, as its relayed tool calls are; other requests unchanged.
export function clientPermissionRequest<T extends PermissionLike>(
  request: T,
): T {
  const step: unknown = ownMetaOf(request._meta).step;
  if (typeof step !== "string") return request;
  const toolCallId = `${step}/${request.toolCall.toolCallId}`;
  return { ...request, toolCall: { ...request.toolCall, toolCallId } };
}
