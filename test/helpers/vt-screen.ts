// A small terminal emulator for tests: replays what a program wrote to a pseudo-terminal and
// returns the text a person would see (scrollback included). It models what acphub's renderer
// and Node's readline use: printable characters with the terminal's deferred wrap and two-column
// wide characters, CR, LF, BS, cursor movement (CSI A B C D G H), erase in line and display
// (CSI K, J) and scrolling; colours and modes are ignored.
import { charWidth } from "../../src/cli/tty/width.js";

type Row = string[];

export function renderScreen(
  output: string,
  columns: number,
  height: number,
): string[] {
  const blank = (): Row => Array<string>(columns).fill(" ");
  const scrollback: Row[] = [];
  const screen: Row[] = Array.from({ length: height }, blank);
  let row = 0;
  let col = 0; // === columns: the deferred-wrap position after the last column
  const lineFeed = () => {
    if (row === height - 1) {
      scrollback.push(screen.shift()!);
      screen.push(blank());
    } else row += 1;
    col = Math.min(col, columns - 1);
  };
  const put = (char: string) => {
    const w = charWidth(char);
    if (w === 0) return;
    if (col + w > columns) {
      col = 0;
      lineFeed();
    }
    screen[row]![col] = char;
    if (w === 2) screen[row]![col + 1] = "";
    col += w;
  };
  const erase = (r: number, from: number, to: number) => {
    for (let c = from; c < to; c++) screen[r]![c] = " ";
  };
  const csi = (params: string, final: string) => {
    const n = (i = 0, dflt = 1) =>
      Number(params.replace(/^\?/, "").split(";")[i] || dflt);
    if (final === "A" || final === "B") col = Math.min(col, columns - 1);
    if (final === "A") row = Math.max(0, row - n());
    else if (final === "B") row = Math.min(height - 1, row + n());
    else if (final === "C") col = Math.min(columns - 1, col + n());
    else if (final === "D") col = Math.max(0, Math.min(col, columns - 1) - n());
    else if (final === "G") col = Math.min(columns - 1, n() - 1);
    else if (final === "H" || final === "f") {
      row = Math.min(height - 1, n(0) - 1);
      col = Math.min(columns - 1, n(1) - 1);
    } else if (final === "K") {
      const mode = n(0, 0);
      if (mode === 0) erase(row, Math.min(col, columns - 1), columns);
      else if (mode === 1) erase(row, 0, Math.min(col + 1, columns));
      else erase(row, 0, columns);
    } else if (final === "J") {
      const mode = n(0, 0);
      const [first, last] =
        mode === 0 ? [row + 1, height] : mode === 1 ? [0, row] : [0, height];
      for (let r = first; r < last; r++) erase(r, 0, columns);
      if (mode === 0) erase(row, Math.min(col, columns), columns);
      if (mode === 1) erase(row, 0, Math.min(col + 1, columns));
    }
  };
  const chars = [...output];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === "\x1b") {
      if (chars[i + 1] === "[") {
        let j = i + 2;
        while (j < chars.length && !/[@-~]/.test(chars[j]!)) j++;
        csi(chars.slice(i + 2, j).join(""), chars[j] ?? "");
        i = j;
      } else i += 1; // a two-character escape: ignored
    } else if (ch === "\r") col = 0;
    else if (ch === "\n") lineFeed();
    else if (ch === "\b") col = Math.max(0, Math.min(col, columns - 1) - 1);
    else if (ch >= " ") put(ch);
  }
  const lines = [...scrollback, ...screen].map((r) => r.join("").trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}
