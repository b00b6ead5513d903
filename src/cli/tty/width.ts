// How many terminal columns text takes and how many screen rows a line fills once the terminal
// wraps it: by display width (wide CJK and emoji take two columns, combining marks none), not
// by string length, so what is redrawn in place is exactly what was printed.
import { stripAnsi } from "./ansi.js";

const ZERO = /[\p{Mn}\p{Me}\p{Cf}\p{Cc}]/u;
const EMOJI = /\p{Emoji_Presentation}/u;
// East Asian Wide and Fullwidth blocks (Hangul Jamo, CJK, Hiragana…Yi, Hangul, compatibility
// ideographs, vertical forms, fullwidth forms, and the supplementary ideographic planes).
const WIDE_RANGES: readonly [number, number][] = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x20000, 0x3fffd],
];

/** Columns one character (code point) takes: 0, 1 or 2. */
export function charWidth(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if (ZERO.test(char)) return 0;
  if (EMOJI.test(char)) return 2;
  return WIDE_RANGES.some(([lo, hi]) => code >= lo && code <= hi) ? 2 : 1;
}

/** Columns a line takes, escape sequences not counted. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of stripAnsi(text)) width += charWidth(char);
  return width;
}

// Screen rows a line fills when printed from column 0 of a terminal `columns` wide. Like the
// terminal: a wide character that does not fit at the end of a row moves to the next one, a
// line exactly as wide as the terminal stays on its last row, a tab moves to the next stop.
export function screenRows(text: string, columns: number): number {
  let row = 0;
  let col = 0;
  for (const char of stripAnsi(text)) {
    if (char === "\t") {
      col = Math.min(columns, (Math.floor(col / 8) + 1) * 8);
      continue;
    }
    const w = charWidth(char);
    if (w === 0) continue;
    if (col + w > columns) {
      row += 1;
      col = 0;
    }
    col += w;
  }
  return row + 1;
}
