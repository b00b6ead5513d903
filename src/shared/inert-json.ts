// JSON escapes C0 controls but not DEL and C1 (U+009B is a CSI to some terminals): those are
// written as \u escapes too, the same JSON value, so JSON on a terminal (or in an export a
// terminal may show) stays inert.
const RAW_CONTROLS = /[\u007f-\u009f]/g;

/** `JSON.stringify(value)`, inert on a terminal and parsing back to the same value. */
export function inertJson(value: unknown): string {
  return JSON.stringify(value).replace(
    RAW_CONTROLS,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
