// A unified line diff of two texts for a tool call's diff card (LCS over lines; very large
// inputs fall back to all-removed / all-added rather than spending quadratic time).
export interface DiffLine {
  sign: " " | "-" | "+";
  text: string;
}

const MAX_CELLS = 4_000_000;

export function lineDiff(oldText: string, newText: string): DiffLine[] {
  const a = oldText === "" ? [] : oldText.split("\n");
  const b = newText.split("\n");
  if (a.length * b.length > MAX_CELLS)
    return [
      ...a.map((text) => ({ sign: "-" as const, text })),
      ...b.map((text) => ({ sign: "+" as const, text })),
    ];
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i * w + j] =
        a[i] === b[j]
          ? lcs[(i + 1) * w + j + 1]! + 1
          : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ sign: " ", text: a[i]! });
      i++;
      j++;
    } else if (
      i < a.length &&
      (j >= b.length || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)
    ) {
      out.push({ sign: "-", text: a[i++]! });
    } else out.push({ sign: "+", text: b[j++]! });
  }
  return out;
}
