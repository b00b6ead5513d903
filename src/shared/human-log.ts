// Log records as a person reads them on stderr: `acphub: warning: message (key=value, …)`.
// The JSON form stays for --verbose, --log-format json and log files, where tools read it.
import { writeSync } from "node:fs";

const LEVEL_NAMES: Record<number, string> = {
  10: "trace",
  20: "debug",
  30: "info",
  40: "warning",
  50: "error",
  60: "fatal",
};

const HIDDEN = new Set(["level", "time", "pid", "name", "msg", "hostname"]);
const MAX_VALUE_CHARS = 300;

function shown(value: unknown): string {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && "message" in value)
    return String((value as { message: unknown }).message);
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_VALUE_CHARS
    ? `${text.slice(0, MAX_VALUE_CHARS)}…`
    : text;
}

// One serialized pino record (masked already) as one human line.
export function humanLine(record: string): string {
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(record) as Record<string, unknown>;
  } catch {
    return record.endsWith("\n") ? record : `${record}\n`;
  }
  const level = LEVEL_NAMES[Number(r["level"])] ?? "log";
  const fields = Object.entries(r)
    .filter(([key]) => !HIDDEN.has(key))
    .map(([key, value]) => `${key}=${shown(value)}`);
  const tail = fields.length > 0 ? ` (${fields.join(", ")})` : "";
  return `acphub: ${level}: ${String(r["msg"] ?? "")}${tail}\n`;
}

// A pino destination writing human lines to stderr; a closed stderr loses the line, no more.
export function humanStderr(): { write: (record: string) => void } {
  return {
    write: (record) => {
      try {
        writeSync(2, humanLine(record));
      } catch {
        // nowhere left to say it
      }
    },
  };
}
