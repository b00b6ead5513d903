// The `shell` template filter and where it may stand. The filter turns any NUL-free text into
// one shell word (POSIX single quotes; a `'` becomes `'\''`), which `sh` and `bash` read back
// as exactly that text. That holds only where the word is read as shell code, unquoted: inside
// double quotes, backticks, `${…}`, `$'…'`, after a backslash, in a here-doc body or in
// arithmetic the same quotes mean something else, so a `run:` using the filter there is refused.

/** One shell word holding `text` exactly (sh, bash, dash, zsh in sh mode). */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

type Context = "sq" | "dq" | "bt" | "param" | "subst" | "paren";

/** Quoting contexts a `{{ … | shell }}` may not stand in, by what the text shows. */
const REFUSED: Record<Context, string | undefined> = {
  sq: "inside single quotes",
  dq: "inside double quotes",
  bt: "inside backticks",
  param: "inside ${…}",
  subst: undefined,
  paren: undefined,
};

interface Span {
  start: number;
  end: number;
}

// Why the word at `at` is not plain shell code, or undefined when it is.
function placeProblem(text: string, at: number, stack: Context[]) {
  for (const c of stack) if (REFUSED[c]) return REFUSED[c];
  if (text[at - 1] === "$") return "right after $";
  return undefined;
}

// The context a `$(` or `${` at text[i] opens, if one does.
function dollarOpens(text: string, i: number): Context | undefined {
  if (text.startsWith("$(", i)) return "subst";
  if (text.startsWith("${", i)) return "param";
  return undefined;
}

// One step of the scanner at text[i] outside single quotes; returns how far to move.
function step(text: string, i: number, stack: Context[]): number {
  const top = stack.at(-1);
  const c = text[i]!;
  if (c === "\\") return 2;
  const opened = dollarOpens(text, i);
  if (opened) {
    stack.push(opened);
    return 2;
  }
  if (top === "dq") {
    if (c === '"') stack.pop();
    else if (c === "`") stack.push("bt");
    return 1;
  }
  if (c === "#" && (i === 0 || /\s|;/.test(text[i - 1]!))) {
    const end = text.indexOf("\n", i);
    return (end === -1 ? text.length : end) - i;
  }
  if (c === "'") stack.push("sq");
  else if (c === '"') stack.push("dq");
  else if (c === "`" && top === "bt") stack.pop();
  else if (c === "`") stack.push("bt");
  else if (c === "(") stack.push("paren");
  else if (c === ")" && (top === "subst" || top === "paren")) stack.pop();
  else if (c === "}" && top === "param") stack.pop();
  return 1;
}

/**
 * Why each `{{ … | shell }}` in a `run:` text (at the given spans) cannot stand where it does;
 * empty when every one is a plain word of shell code.
 */
export function shellFilterProblems(text: string, spans: Span[]): string[] {
  if (spans.length === 0) return [];
  if (text.includes("<<"))
    return ["a here-doc (<<) body is not shell code: quoting does not apply"];
  if (text.includes("(("))
    return ["arithmetic ((…)) reads quotes as text, not quoting"];
  const problems: string[] = [];
  const starts = new Map(spans.map((s) => [s.start, s]));
  const stack: Context[] = [];
  let i = 0;
  while (i < text.length) {
    const span = starts.get(i);
    if (span) {
      const why = placeProblem(text, i, stack);
      if (why) problems.push(`${text.slice(span.start, span.end)} ${why}`);
      i = span.end;
    } else if (text[i] === "$" && starts.has(i + 1)) {
      i += 1; // `${{ … }}`: the template is flagged as right after $
    } else if (stack.at(-1) === "sq") {
      if (text[i] === "'") stack.pop();
      i += 1;
    } else {
      const move = step(text, i, stack);
      if (move === 2 && text[i] === "\\" && starts.has(i + 1))
        problems.push(
          `${text.slice(i + 1, starts.get(i + 1)!.end)} after a backslash`,
        );
      i += move;
    }
  }
  return problems;
}
