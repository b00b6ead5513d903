// The mock agent's scenario language: a turn is a list of steps, each an object with one
// step key. Parsed from the prompt text (when it is a JSON object with "steps") or from the
// `--scenario` file, and validated with messages that name the bad step.

export interface Scenario {
  steps: Step[];
  stopReason?: string;
  usage?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export type Step = Record<string, unknown>;

/** Step keys and what each does; also the `--help` text. */
export const STEP_HELP: Record<string, string> = {
  text: '"…" — stream agent_message_chunk text ("repeat": N times over, split in "chunks": N pieces)',
  thought: '"…" — stream an agent_thought_chunk',
  toolCall:
    "{toolCallId, title, kind, status, content, locations} — a tool_call",
  toolCallUpdate: "{toolCallId, status, content, …} — a tool_call_update",
  plan: "[{content, priority, status}] — a plan",
  usage: "{used, size, cost} — a usage_update",
  sessionInfo: "{title} — a session_info_update",
  commands: "[{name, description}] — an available_commands_update",
  update: "{sessionUpdate, …} — any update as given (unknown variants, _meta)",
  permission:
    '{toolCallId, title, kind, toolCall, options, onReject: "stop"|"continue"} — ask, then act on the answer (title/kind null: left out)',
  readFile: "{path, line, limit} — fs/read_text_file, result reported as text",
  writeFile: "{path, content} — fs/write_text_file",
  terminal:
    "{command, args, cwd, env, outputByteLimit, kill, killWhenOutput} — terminal/* create…release",
  extRequest:
    '{method, params} — an extension request (e.g. "_acphub.test/echo")',
  extNotification: "{method, params} — an extension notification",
  elicit:
    "{message, mode, requestedSchema, cancelAfterMs} — elicitation/create, the answer reported as text",
  promptMeta: "true — report the session/prompt's _meta as text",
  history: "true — report the user text this session has seen so far",
  state:
    "true — report the client's capabilities and the session's mode, model and options",
  sleep: "MS — wait; session/cancel ends the turn with cancelled",
  waitFile:
    '"PATH" — wait until this file exists (checked every 20 ms, at most 60 s); session/cancel ends the turn with cancelled',
  hang: "true — never answer and ignore session/cancel",
  exit: "CODE — exit the process mid-turn",
  stderr: '"…" — write a line to stderr (shows in acphub\'s error messages)',
  shell:
    '"SCRIPT" — run SCRIPT as a terminal the client hosts (terminal/create; with --own-shell: sh -c in the agent\'s own process); report exit code and output',
  env: "true — report the names of this process's environment variables as text ([\"NAME\", …]: and those variables' values, NAME=value a line)",
  pid: "true — report this process's pid as text (pid: N)",
  otelSpan:
    '"NAME" — export one root span of its own over OTEL_EXPORTER_OTLP_ENDPOINT/_HEADERS (OTLP/HTTP JSON; MOCK_SECRET\'s value as an attribute); report the HTTP status (otel: 200)',
  garbage: '"…" — print a non-JSON line to stdout ("repeat": N)',
  oversized: "BYTES — print one line of that many bytes to stdout",
  error: "{code, message} — answer the prompt with this JSON-RPC error",
  stop: 'REASON — end the turn now with this stopReason ("max_tokens", …)',
};

const MODIFIERS = new Set(["chunks", "repeat", "onReject", "_meta"]);

export class ScenarioError extends Error {}

// Validates a scenario object; every problem names the step index and key.
export function validateScenario(value: unknown, where: string): Scenario {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ScenarioError(`${where}: a scenario is an object with "steps"`);
  }
  const scenario = value as Partial<Scenario>;
  if (!Array.isArray(scenario.steps)) {
    throw new ScenarioError(`${where}: "steps" must be an array`);
  }
  scenario.steps.forEach((step, index) => {
    if (step === null || typeof step !== "object" || Array.isArray(step)) {
      throw new ScenarioError(`${where}: step ${index} must be an object`);
    }
    const keys = Object.keys(step as object).filter((k) => !MODIFIERS.has(k));
    const known = keys.filter((k) => k in STEP_HELP);
    if (known.length !== 1 || keys.length !== 1) {
      throw new ScenarioError(
        `${where}: step ${index} needs exactly one step key, got ${JSON.stringify(keys)}; known: ${Object.keys(STEP_HELP).join(", ")}`,
      );
    }
  });
  return scenario as Scenario;
}

// A prompt whose text is a JSON object with "steps" is a scenario; anything else is not.
export function scenarioFromPrompt(text: string): Scenario | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== "object" || !("steps" in value))
    return undefined;
  return validateScenario(value, "prompt scenario");
}

/** The turn used for plain prompts: echo the text back in a few chunks. */
export function echoScenario(text: string): Scenario {
  const reply = `mock agent received: ${text}`;
  return {
    steps: [
      {
        text: reply,
        chunks: Math.min(8, Math.max(1, reply.split(" ").length)),
      },
    ],
  };
}

export function helpText(): string {
  const lines = Object.entries(STEP_HELP).map(
    ([k, v]) => `  ${k.padEnd(16)}${v}`,
  );
  return [
    'Scenario language: a JSON object {"steps": [STEP, …], "stopReason"?, "usage"?, "_meta"?}',
    'sent as the prompt text, or given with --scenario FILE (a scenario, or {"turns": [scenario, …]}',
    "used one per prompt, the last repeating). Any other prompt is echoed back. Steps:",
    ...lines,
    "",
    'Example: {"steps":[{"text":"hello","chunks":2},{"sleep":500},{"permission":{"title":"Edit","kind":"edit"}}]}',
  ].join("\n");
}
