// The mock agent's per-session state: the current mode, model and config values, answered in
// session/new, load, resume and fork as a real agent would.
import type { SessionConfigOption } from "@agentclientprotocol/sdk";

export interface MockSession {
  cwd: string;
  history: Record<string, unknown>[];
  title: string | null;
  updatedAt: string;
  turn?: AbortController;
  turns: number;
  modeId?: string;
  modelId?: string;
  /** Config option values by option id. */
  config?: Record<string, string>;
  /** The MCP servers the client gave with session/new, load or resume (for tests to read). */
  mcpServers?: unknown[];
}

export const MODES = {
  currentModeId: "ask",
  availableModes: [
    { id: "ask", name: "Ask" },
    { id: "code", name: "Code" },
  ],
};

export const CONFIG: SessionConfigOption[] = [
  {
    id: "model",
    name: "Model",
    type: "select",
    currentValue: "mock-small",
    options: [
      { value: "mock-small", name: "Small" },
      { value: "mock-large", name: "Large" },
    ],
  },
];

/** The legacy unstable `models` state, as claude-code-acp answers it. */
export const MODELS = {
  currentModelId: "mock-default",
  availableModels: [
    { modelId: "mock-default", name: "Default" },
    { modelId: "mock-opus", name: "Opus" },
  ],
};

export interface StateFlags {
  modes?: boolean;
  configOptions?: boolean;
  models?: boolean;
}

/** The config options with this session's current values. */
export function configOf(session: MockSession): SessionConfigOption[] {
  return CONFIG.map((c) =>
    session.config?.[c.id] !== undefined
      ? ({ ...c, currentValue: session.config[c.id] } as SessionConfigOption)
      : c,
  );
}

/** What session/new, load, resume and fork answer about the session's state. */
export function sessionStateOf(session: MockSession, flags: StateFlags) {
  return {
    ...(flags.modes
      ? { modes: { ...MODES, currentModeId: session.modeId ?? "ask" } }
      : {}),
    ...(flags.configOptions ? { configOptions: configOf(session) } : {}),
    ...(flags.models
      ? {
          models: {
            ...MODELS,
            currentModelId: session.modelId ?? MODELS.currentModelId,
          },
        }
      : {}),
  };
}
