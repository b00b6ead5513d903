// Logging goes to stderr (fd 2) or a file, never stdout: stdout carries the protocol.
import { pino, type Logger } from "pino";

export type { Logger };

export type LogLevel =
  "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export interface LoggerOptions {
  level?: LogLevel;
  /** Write to this file instead of stderr. */
  file?: string;
  name?: string;
  /** Masks secret values in every record (see SecretMasker). */
  mask?: (text: string) => string;
}

// One place builds loggers so that no part of acphub can point one at stdout.
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = pino.destination({
    dest: options.file ?? 2,
    sync: true,
    mkdir: options.file !== undefined,
  });
  const mask = options.mask;
  return pino(
    {
      name: options.name ?? "acphub",
      level: options.level ?? "warn",
      base: { pid: process.pid },
      // Masking the serialized record covers messages, bindings and nested objects alike.
      ...(mask ? { hooks: { streamWrite: mask } } : {}),
    },
    destination,
  );
}

// A logger that drops everything; the library default so embedding apps stay quiet.
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
