// What every command needs before it touches an agent: config, paths, a logger.
import type { AppContext } from "../config/context.js";
import type { LoadedConfig } from "../config/load.js";
import { loadCliConfig } from "./load-config.js";
import { SecretMasker } from "../shared/secrets.js";
import { createLogger, type LogLevel } from "../shared/logger.js";

export interface GlobalOptions {
  config?: string;
  verbose?: boolean;
  logFile?: string;
  logFormat?: "json" | "human";
}

const LEVELS = new Set([
  "fatal",
  "error",
  "warn",
  "info",
  "debug",
  "trace",
  "silent",
]);

function logLevel(options: GlobalOptions): LogLevel {
  if (options.verbose) return "debug";
  const fromEnv = process.env["ACPHUB_LOG"];
  return fromEnv && LEVELS.has(fromEnv) ? (fromEnv as LogLevel) : "warn";
}

// --verbose, ACPHUB_LOG=debug|trace or a log file: logs meant for tools, so JSON.
function debugging(options: GlobalOptions): boolean {
  const level = logLevel(options);
  return (
    level === "debug" || level === "trace" || options.logFile !== undefined
  );
}

export function cliContext(options: GlobalOptions): AppContext {
  return contextFrom(loadCliConfig(options), options);
}

// The logger for an already loaded config (run loads the config first, to spawn the agent early).
export function contextFrom(
  loaded: LoadedConfig,
  options: GlobalOptions,
): AppContext {
  const masker = SecretMasker.fromEnv(process.env);
  const logger = createLogger({
    level: logLevel(options),
    file: options.logFile,
    // People read stderr; --verbose (JSON-RPC frames), files and tools get JSON.
    format: options.logFormat ?? (debugging(options) ? "json" : "human"),
    mask: (text) => masker.mask(text),
  });
  return { ...loaded, logger };
}
