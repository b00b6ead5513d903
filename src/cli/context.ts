// What every command needs before it touches an agent: config, paths, a logger.
import { loadConfig, type LoadedConfig } from "../config/load.js";
import { createLogger, type Logger, type LogLevel } from "../shared/logger.js";

export interface GlobalOptions {
  config?: string;
  verbose?: boolean;
  logFile?: string;
}

export interface CliContext extends LoadedConfig {
  logger: Logger;
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

export function cliContext(options: GlobalOptions): CliContext {
  const logger = createLogger({
    level: logLevel(options),
    file: options.logFile,
  });
  return { ...loadConfig({ configFile: options.config }), logger };
}
