// Text that came from an agent (its replies, tool titles, diffs, a file it read) is shown at
// the user's terminal: a control character in it — ESC starting a CSI, OSC or DCS sequence, a
// C1 control such as U+009B (CSI), a carriage return — could move the cursor, rewrite or clear
// the screen, set the window title or hide text. Neutralized here, shown visibly instead.

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

// One control character made harmless: C0 and DEL in caret notation (ESC is `^[`), a
// carriage return dropped (CRLF becomes LF; text after a lone CR no longer overwrites the
// line), C1 as U+FFFD. Newline and tab are kept.
function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (code === 0x0d) return "";
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return "^?";
  return "\ufffd";
}

/** Agent text safe to write to a terminal. */
export function safeText(text: string): string {
  return text.replace(CONTROL, visible);
}

/** A copy of an event (or any JSON value) with every string in it made safe for a terminal. */
export function safeDeep<T>(value: T): T {
  if (typeof value === "string") return safeText(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => safeDeep(v)) as T;
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, safeDeep(v)]),
    ) as T;
  return value;
}

export { inertJson } from "../../shared/inert-json.js";
