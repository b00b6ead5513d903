// Logging goes to stderr (fd 2) or a file, never stdout: stdout carries the protocol.
import { pino, type Logger } from "pino";
import { HubError } from "./errors.js";
import { humanStderr } from "./human-log.js";

export type { Logger };

export type LogLevel =
  "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export interface LoggerOptions {
  level?: LogLevel;
  /** Write to this file instead of stderr. */
  file?: string;
  name?: string;
  /** `human`: one readable line per record on stderr (not for files); default `json`. */
  format?: "json" | "human";
  /** Masks secret values in every record (see SecretMasker). */
  mask?: (text: string) => string;
}

const WHY_NOT_WRITABLE: Record<string, string> = {
  ENOENT: "its folder does not exist",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EEXIST: "part of its path is a file, not a folder",
  ENOTDIR: "part of its path is a file, not a folder",
  EISDIR: "it is a folder",
  EROFS: "the file system is read-only",
};

// The file or stderr a logger writes to; a file that cannot be opened is a usage error.
function destinationFor(options: LoggerOptions) {
  if (options.format === "human" && options.file === undefined)
    return humanStderr();
  try {
    return pino.destination({
      dest: options.file ?? 2,
      sync: true,
      mkdir: options.file !== undefined,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    throw new HubError(
      "USAGE",
      `cannot write the log file ${options.file}: ${WHY_NOT_WRITABLE[code] ?? (error as Error).message}; choose a writable path`,
      { cause: error },
    );
  }
}

// One place builds loggers so that no part of acphub can point one at stdout.
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = destinationFor(options);
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
