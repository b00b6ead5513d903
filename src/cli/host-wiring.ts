// Builds the host services (files, terminals, permissions) a CLI command gives its agent.
import type { Config, PermissionMode } from "../config/schema.js";
import {
  DEFAULT_ALLOWED_COMMANDS,
  DEFAULT_DENY_RULES,
} from "../host/command-policy.js";
import {
  createHost,
  type EditorBridge,
  type HostServices,
} from "../host/create-host.js";
import { DecisionMemory } from "../host/decision-memory.js";
import { PermissionEngine, type Approver } from "../host/permission-engine.js";
import type { Logger } from "../shared/logger.js";
import { SecretMasker } from "../shared/secrets.js";

export interface HostWiring {
  config: Config;
  stateDir: string;
  mode: PermissionMode;
  approver?: Approver;
  logger: Logger;
  editor?: EditorBridge;
}

export function buildHost(w: HostWiring): HostServices {
  const { config } = w;
  const masker = SecretMasker.fromEnv(process.env);
  const engine = new PermissionEngine({
    mask: (text) => masker.mask(text),
    mode: w.mode,
    rules: config.permissions?.rules,
    approver: w.approver,
    memory: DecisionMemory.inStateDir(w.stateDir),
  });
  const t = config.terminals ?? {};
  return createHost({
    engine,
    roots: config.fs?.roots,
    fsLimits: {
      maxReadBytes: config.fs?.maxReadBytes,
      maxWriteBytes: config.fs?.maxWriteBytes,
    },
    terminalLimits: {
      outputByteLimit: t.outputByteLimit,
      timeoutMs: t.timeoutMs,
      maxPerSession: t.maxPerSession,
    },
    commands: {
      allow: [
        ...(t.allow ?? DEFAULT_ALLOWED_COMMANDS),
        ...(t.extraAllow ?? []),
      ],
      deny: [...DEFAULT_DENY_RULES, ...(t.deny ?? [])],
    },
    logger: w.logger,
    masker,
    editor: w.editor,
  });
}
