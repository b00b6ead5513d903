// ANSI styling, switched off entirely when output is not a terminal or NO_COLOR is set.
export interface Style {
  enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) =>
  `\x1b[${open}m${text}\x1b[${close}m`;

export function makeStyle(enabled: boolean): Style {
  const id = (text: string) => text;
  return {
    enabled,
    bold: enabled ? wrap(1, 22) : id,
    dim: enabled ? wrap(2, 22) : id,
    red: enabled ? wrap(31, 39) : id,
    green: enabled ? wrap(32, 39) : id,
    yellow: enabled ? wrap(33, 39) : id,
    cyan: enabled ? wrap(36, 39) : id,
    magenta: enabled ? wrap(35, 39) : id,
  };
}

/** Whether to style output: a terminal, and NO_COLOR unset. */
export function colorWanted(
  stream: NodeJS.WriteStream,
  env = process.env,
): boolean {
  return stream.isTTY === true && !env["NO_COLOR"];
}

export const CLEAR_LINE = "\r\x1b[2K";
export const UP = (n: number) => (n > 0 ? `\x1b[${n}A` : "");

const ESC = String.fromCharCode(27);

// Removes escape sequences, for tests and width computations.
export function stripAnsi(text: string): string {
  return text.replace(new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]`, "g"), "");
}
