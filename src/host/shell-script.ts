// Reads shell scripts the way bash does, far enough to name every simple command they run
// (with its words) and every variable they assign: quotes, escapes, line continuations,
// comments, here-documents (bodies with unquoted delimiters read as code), here-strings,
// `$(…)`, backticks, `<(…)`, `${…}`, arithmetic, `case`, `[[ ]]`, functions. What it cannot
// read (an unclosed quote, nesting too deep) is reported, never guessed.
import {
  ansiC,
  backquoted,
  balanced,
  Cursor,
  dollar,
  doubleQuoted,
  type Nesting,
} from "./shell-words.js";
import {
  ASSIGNMENT,
  Grammar,
  type ScriptReading,
  type Token,
  type Word,
} from "./shell-grammar.js";

export type { ScriptReading, SimpleCommand } from "./shell-grammar.js";

const MAX_DEPTH = 8;
/** Operators, longest first. */
// prettier-ignore
const OPERATORS = [
  ";;&", "<<<", "<<-", "&>>", ";;", ";&", "&&", "||", "|&", "<<", ">>", "<&", ">&", "<>", ">|",
  "&>", ";", "&", "|", "<", ">", "(", ")", "\n",
];
interface Heredoc {
  delimiter: string;
  strip: boolean;
  code: boolean;
}

// True when `command` with no args is a shell line (an editor would run it through `sh -c`).
export function isShellLine(command: string, args: readonly string[]): boolean {
  return args.length === 0 && /[\s;&|<>()$`"'\\*?~{}[\]#=!]/.test(command);
}

/** Reads one script (or a nested one) into `out`. */
class Reader implements Nesting {
  private pending: Heredoc[] = [];
  constructor(
    private readonly c: Cursor,
    private readonly out: ScriptReading,
    private readonly depth: number,
  ) {}

  // Nesting: `$(…)`/`<(…)` on the same cursor, up to its `)`.
  subshell(c: Cursor): void {
    if (this.depth >= MAX_DEPTH) return this.tooDeep(c);
    new Reader(c, this.out, this.depth + 1).list(true);
  }
  script(text: string): void {
    if (this.depth >= MAX_DEPTH) return this.tooDeep(new Cursor(""));
    const inner = new Cursor(text);
    new Reader(inner, this.out, this.depth + 1).list(false);
    if (inner.broken) this.c.broken ??= inner.broken;
  }
  assigned(name: string): void {
    this.out.assigned.push(name);
  }
  arithmetic(text: string): void {
    for (const m of text.matchAll(
      /([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^\]]*\])?\s*([-+*/%&|^]|<<|>>)?=(?!=)|(\+\+|--)\s*([A-Za-z_]\w*)|([A-Za-z_]\w*)\s*(\+\+|--)/g,
    ))
      this.assigned(m[1] ?? m[5] ?? m[6]!);
  }
  private tooDeep(c: Cursor): void {
    this.out.commands.push({ words: ["(nested too deep)"], assigns: [] });
    c.fail("nested too deep");
  }

  // The next token, or undefined at the end; a newline reads the pending here-documents.
  private token(): Token | undefined {
    const c = this.c;
    for (;;) {
      while (c.peek() === " " || c.peek() === "\t") c.i++;
      if (c.at("\\\n")) c.i += 2;
      else if (c.peek() === "#") {
        const end = c.s.indexOf("\n", c.i);
        c.i = end < 0 ? c.s.length : end;
      } else break;
    }
    if (c.done) return undefined;
    if (c.at("<(") || c.at(">(")) {
      c.i += 2;
      this.subshell(c);
      return { word: "<(…)", quoted: false, raw: "<(…)" };
    }
    if (c.at("((") && this.arithmeticCommand()) return { op: "((…))" };
    const op = OPERATORS.find((o) => c.at(o));
    if (op) {
      c.i += op.length;
      if (op === "\n") this.heredocs();
      return { op };
    }
    const word = this.word();
    const fd = /^(\d+|\{[A-Za-z_]\w*\})$/.test(word.raw);
    if (fd && (c.peek() === "<" || c.peek() === ">")) return this.token();
    const def = /^[ \t]*\([ \t]*\)/.exec(c.s.slice(c.i));
    if (def && word.raw === word.word) {
      c.i += def[0].length;
      this.out.functions.push(word.word);
      return { op: "()" };
    }
    return word;
  }

  // `((…))` as an arithmetic command; false (nothing read) when it is two subshells.
  private arithmeticCommand(): boolean {
    const c = this.c;
    const start = c.i;
    c.i += 2;
    const text = balanced(c, this, "(", ")", 2);
    if (c.s.slice(c.i - 2, c.i) === "))") {
      this.arithmetic(text);
      return true;
    }
    c.i = start;
    c.broken = undefined;
    return false;
  }

  // One word: up to a blank or an operator outside quotes.
  private word(): Word {
    const c = this.c;
    const start = c.i;
    let text = "";
    let quoted = false;
    while (!c.done && !/[ \t\n;&|<>()]/.test(c.peek())) {
      const ch = c.peek();
      if (ch === "\\") {
        if (c.peek(1) !== "\n") text += c.peek(1);
        quoted ||= c.peek(1) !== "\n";
        c.i += 2;
      } else if (ch === "'") {
        const end = c.s.indexOf("'", c.i + 1);
        if (end < 0) c.fail("unterminated '");
        else text += c.s.slice(c.i + 1, end);
        c.i = end < 0 ? c.i : end + 1;
        quoted = true;
      } else if (ch === '"' || c.at('$"')) {
        c.i += ch === '"' ? 1 : 2;
        text += doubleQuoted(c, this, '"');
        quoted = true;
      } else if (c.at("$'")) {
        c.i += 2;
        text += ansiC(c);
        quoted = true;
      } else if (ch === "$") text += dollar(c, this, false);
      else if (ch === "`") {
        c.i++;
        this.script(backquoted(c, false));
        text += "$(…)";
      } else if (c.at("=(") && ASSIGNMENT.test(text + "=")) {
        c.i += 2;
        text += "=(" + this.arrayWords() + ")";
      } else text += c.s[c.i++];
    }
    return { word: text, quoted, raw: c.s.slice(start, c.i) };
  }

  // The words of `name=(…)`, up to its `)`.
  private arrayWords(): string {
    const words: string[] = [];
    for (let t = this.token(); t; t = this.token()) {
      if ("op" in t && t.op === ")") return words.join(" ");
      if ("word" in t) words.push(t.word);
    }
    this.c.fail("unterminated (");
    return words.join(" ");
  }

  // The bodies of the here-documents opened on the line just ended.
  private heredocs(): void {
    const c = this.c;
    for (const doc of this.pending.splice(0)) {
      const start = c.i;
      let end = c.s.length;
      let next = c.s.length;
      for (let at = start; at < c.s.length;) {
        const nl = c.s.indexOf("\n", at);
        const lineEnd = nl < 0 ? c.s.length : nl;
        const line = c.s.slice(at, lineEnd);
        if ((doc.strip ? line.replace(/^\t+/, "") : line) === doc.delimiter) {
          end = at;
          next = nl < 0 ? c.s.length : nl + 1;
          break;
        }
        at = lineEnd + 1;
      }
      if (doc.code) {
        const body = new Cursor(c.s.slice(start, end));
        doubleQuoted(body, this, undefined);
        if (body.broken) c.broken ??= body.broken;
      }
      c.i = next;
    }
  }

  /** Reads commands up to the end, or (nested) up to the `)` that closes this level. */
  list(nested: boolean): void {
    const grammar = new Grammar(this.out, (t) => this.onHeredoc(t));
    const closed = grammar.run(() => this.token(), nested);
    if (nested && !closed) this.c.fail("unterminated $(");
  }

  private onHeredoc(t: { op: string; target: Token | undefined }): void {
    if (!t.target || !("word" in t.target)) return;
    this.pending.push({
      delimiter: t.target.word,
      strip: t.op === "<<-",
      code: t.target.raw === t.target.word,
    });
  }
}

// Reads a whole script.
export function readScript(script: string, depth = 0): ScriptReading {
  const out: ScriptReading = { commands: [], functions: [], assigned: [] };
  const c = new Cursor(script);
  new Reader(c, out, depth).list(false);
  if (c.broken) out.unreadable = c.broken;
  return out;
}

// The first word of every simple command in a shell script, nested ones included.
export function scriptCommands(script: string, depth = 0): string[] {
  return readScript(script, depth).commands.map((c) => c.words[0]!);
}
