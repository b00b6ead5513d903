// The word level of acphub's shell reader: quotes ('…', "…", $'…', $"…"), escapes, line
// continuations and expansions. Every `$(…)`, backtick, `<(…)`, `${…}` and `$((…))` met in a
// word — quoted or not, in a here-document body too — is handed back to the script reader, so
// no command inside a word goes unseen. Words keep expansions as written (`$HOME`, `$(…)`).

/** The script reader's side: reads a nested script from the cursor up to its `)`. */
export interface Nesting {
  /** Reads `$(…)`/`<(…)` from just after the `(`, up to and including the closing `)`. */
  subshell(cursor: Cursor): void;
  /** Reads the text of a backquoted command (already unescaped). */
  script(text: string): void;
  /** Notes a variable an expansion assigns (`${NAME:=…}`) or arithmetic text. */
  assigned(name: string): void;
  arithmetic(text: string): void;
}

/** A position in the script and what reading it found wrong. */
export class Cursor {
  i = 0;
  /** Set when a quote or a substitution is never closed. */
  broken: string | undefined;
  constructor(readonly s: string) {}
  peek(n = 0): string {
    return this.s[this.i + n] ?? "";
  }
  at(text: string): boolean {
    return this.s.startsWith(text, this.i);
  }
  get done(): boolean {
    return this.i >= this.s.length;
  }
  fail(why: string): void {
    this.broken ??= why;
    this.i = this.s.length;
  }
}

const C_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

// `$'…'` from just after the opening quote: the escapes bash knows, decoded.
export function ansiC(c: Cursor): string {
  let out = "";
  while (!c.done && c.peek() !== "'") {
    if (c.peek() !== "\\") {
      out += c.s[c.i++];
      continue;
    }
    const e = c.peek(1);
    c.i += 2;
    const num = (re: RegExp, base: number) => {
      const m = re.exec(c.s.slice(c.i));
      const digits = m ? m[0] : "";
      c.i += digits.length;
      return digits ? String.fromCodePoint(parseInt(digits, base)) : "";
    };
    if (e in C_ESCAPES) out += C_ESCAPES[e];
    else if (/[0-7]/.test(e)) {
      c.i--;
      out += num(/^[0-7]{1,3}/, 8);
    } else if (e === "x") out += num(/^[0-9a-fA-F]{1,2}/, 16);
    else if (e === "u") out += num(/^[0-9a-fA-F]{1,4}/, 16);
    else if (e === "U") out += num(/^[0-9a-fA-F]{1,8}/, 16);
    else if (e === "c") out += String.fromCharCode(c.s.charCodeAt(c.i++) & 31);
    else out += "\\" + e;
  }
  if (c.done) c.fail("unterminated $'");
  c.i++;
  return out;
}

// A backquoted command from just after the opening backtick: its text with `\\`, `` \` ``
// and `\$` (and `\"` inside double quotes) unescaped, as bash reads it.
export function backquoted(c: Cursor, inDouble: boolean): string {
  let out = "";
  while (!c.done && c.peek() !== "`") {
    const ch = c.s[c.i++]!;
    const next = c.peek();
    if (
      ch === "\\" &&
      (next === "`" ||
        next === "\\" ||
        next === "$" ||
        (inDouble && next === '"'))
    ) {
      out += next;
      c.i++;
    } else out += ch;
  }
  if (c.done) c.fail("unterminated backquote");
  c.i++;
  return out;
}

// `$…` from the `$`: reads the expansion, hands nested scripts to `n`, returns its text.
export function dollar(c: Cursor, n: Nesting, inDouble: boolean): string {
  const start = c.i;
  c.i++;
  if (c.at("((")) {
    c.i += 2;
    const text = balanced(c, n, "(", ")", 2);
    if (c.s.slice(c.i - 2, c.i) === "))") {
      n.arithmetic(text);
      return c.s.slice(start, c.i);
    }
    // `$( (…) …)`: not arithmetic after all, a command substitution (as bash reads it).
    c.i = start + 2;
  }
  if (c.peek() === "(") {
    c.i++;
    n.subshell(c);
    return "$(…)";
  }
  if (c.peek() === "{") {
    c.i++;
    const inner = balanced(c, n, "{", "}", 1);
    const m = /^#?([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?:?=/.exec(inner);
    if (m) n.assigned(m[1]!);
    return c.s.slice(start, c.i);
  }
  if (!inDouble && (c.peek() === "'" || c.peek() === '"')) return "";
  const m = /^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(c.s.slice(c.i));
  if (m) c.i += m[0].length;
  return c.s.slice(start, c.i);
}

// Reads up to the bracket that closes `depth` open ones (nested scripts read on the way);
// returns the text inside.
export function balanced(
  c: Cursor,
  n: Nesting,
  open: string,
  close: string,
  depth: number,
): string {
  const start = c.i;
  let level = depth;
  while (!c.done) {
    const ch = c.peek();
    if (ch === "\\") c.i += 2;
    else if (ch === "'" && open === "{") {
      const end = c.s.indexOf("'", c.i + 1);
      if (end < 0) c.fail("unterminated quote");
      else c.i = end + 1;
    } else if (ch === '"') {
      c.i++;
      doubleQuoted(c, n, '"');
    } else if (ch === "`") {
      c.i++;
      n.script(backquoted(c, false));
    } else if (ch === "$") dollar(c, n, true);
    else if (ch === open) {
      level++;
      c.i++;
    } else if (ch === close) {
      c.i++;
      if (--level === 0) return c.s.slice(start, c.i - depth);
    } else c.i++;
  }
  c.fail(`unterminated ${open}`);
  return c.s.slice(start);
}

// Double-quoted text from just after the `"` up to the closing one (or, for a here-document
// body, `end` undefined: to the end); returns the text with expansions kept as written.
export function doubleQuoted(
  c: Cursor,
  n: Nesting,
  end: '"' | undefined,
): string {
  let out = "";
  while (!c.done && c.peek() !== end) {
    const ch = c.peek();
    if (ch === "\\") {
      const next = c.peek(1);
      c.i += 2;
      if (next === "\n") continue;
      out += '$`"\\'.includes(next) && next !== "" ? next : "\\" + next;
    } else if (ch === "$") out += dollar(c, n, true);
    else if (ch === "`") {
      c.i++;
      n.script(backquoted(c, end === '"'));
      out += "$(…)";
    } else out += c.s[c.i++];
  }
  if (end !== undefined) {
    if (c.done) c.fail('unterminated "');
    c.i++;
  }
  return out;
}
