// What `flow run` shows people: the step agents' text on stdout, step and tool lines on stderr
// named by step and agent (`look · mock`), not by raw ids; or NDJSON with --json.
import type { WorkflowStep } from "../app/flow-run.js";
import { stepLabel } from "../app/flow-run.js";
import { ownMetaOf } from "../shared/hub-extension.js";
import { jsonRenderer, plainRenderer, stdio, type Renderer } from "./render.js";

type Update = Record<string, unknown>;

// A step agent's tool call, titled `look · mock › its title` (else its kind, else its own id)
// instead of showing the step-prefixed id; other updates unchanged.
function readableStepTool(
  u: Update,
  step: string,
  steps: readonly WorkflowStep[],
): Update {
  const id = String(u["toolCallId"]);
  const own = id.slice(step.length + 1);
  const named =
    u["title"] ??
    (u["sessionUpdate"] === "tool_call" ? (u["kind"] ?? own) : undefined);
  if (named === undefined) return u;
  return { ...u, title: `${stepLabel(steps, step)} › ${String(named)}` };
}

// True for the updates of a step a resumed run took from its journal.
const doneEarlier = (u: Update) =>
  ownMetaOf(u["_meta"])["doneEarlier"] === true;

// "done earlier", or "failed earlier" for a failed attempt the run then jumped on from.
const earlierWords = (u: Update) =>
  u["status"] === "completed"
    ? "done earlier"
    : `${String(u["status"])} earlier`;

// Step lines on stderr for people (the agents' text goes to stdout), or NDJSON.
export function flowRenderer(
  json: boolean,
  steps: readonly WorkflowStep[],
): Renderer {
  if (json) return jsonRenderer(stdio);
  const plain = plainRenderer(stdio);
  // Each step's title as the run rendered it when the step started.
  const titles = new Map<string, string>();
  const label = (step: string) => titles.get(step) ?? stepLabel(steps, step);
  return (event) => {
    if (event.type !== "session_update") return plain(event);
    const u = event.update as Update;
    const kind = u["sessionUpdate"];
    const { step } = ownMetaOf(u["_meta"]);
    const isTool = kind === "tool_call" || kind === "tool_call_update";
    const ofStepAgent = step && String(u["toolCallId"]).startsWith(`${step}/`);
    if (kind === "plan") return;
    if (kind === "tool_call" && step && !ofStepAgent)
      titles.set(step, String(u["title"]));
    if (isTool && step && !ofStepAgent && doneEarlier(u)) {
      if (kind === "tool_call")
        stdio.err(`\n[step] ${label(step)}: ${earlierWords(u)}\n`);
    } else if (kind === "tool_call_update" && step && !ofStepAgent)
      stdio.err(`\n[step] ${label(step)}: ${String(u["status"])}\n`);
    else if (isTool && step && ofStepAgent)
      plain({ ...event, update: readableStepTool(u, step, steps) as never });
    else plain(event);
  };
}
