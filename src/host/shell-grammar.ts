// The grammar level of acphub's shell reader: which word of a token stream is a command
// (after operators and reserved words, not in `case` patterns, `[[ ]]`, `for` headers or
// function names), which are its arguments, and which variables are assigned before it.
/** One simple command: its words as written (quotes removed, expansions kept) and the
 *  variables assigned before it (`PATH=… git`). */
export interface SimpleCommand {
  words: string[];
  assigns: string[];
}

export interface ScriptReading {
  commands: SimpleCommand[];
  /** Names the script defines as functions. */
  functions: string[];
  /** Variables assigned outside a command's prefix (`for X`, `${X:=…}`, arithmetic). */
  assigned: string[];
  /** Why the script could not be read whole, if it could not. */
  unreadable?: string;
}

export const REDIRECTS = new Set([
  "<",
  ">",
  ">>",
  "<&",
  ">&",
  "<>",
  ">|",
  "&>",
  "&>>",
  "<<<",
]);
/** Keywords after which the next word is still a command. */
// prettier-ignore
const LEADING = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{", "time", "coproc"]);
const CLOSING = new Set(["fi", "done", "}", "esac"]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/;

/** A word keeps its source text (`raw`): reserved words and assignments are unquoted. */
export type Word = { word: string; quoted: boolean; raw: string };
export type Token = { op: string } | Word;

/** The command-position state machine over the tokens of one level. */
export class Grammar {
  private current: SimpleCommand = { words: [], assigns: [] };
  private atCommand = true;
  /** Open `case`s: true while reading patterns. */
  private cases: boolean[] = [];
  private parens = 0;
  private inTest = false;
  /** Words that are names, not commands: after `case` (2), `function` (1), `for` (all). */
  private skip:
    { words: number; what: "case" | "function" | "for" } | undefined;

  constructor(
    private readonly out: ScriptReading,
    private readonly heredoc: (t: {
      op: string;
      target: Token | undefined;
    }) => void,
  ) {}

  // Feeds the tokens through; true when a nested level ended at its `)`.
  run(next: () => Token | undefined, nested: boolean): boolean {
    for (let t = next(); t; t = next()) {
      if ("word" in t) {
        this.word(t);
        continue;
      }
      const closes = t.op === ")" && this.parens === 0;
      if (nested && closes && !this.inCasePattern() && !this.inTest) {
        this.flush();
        return true;
      }
      if (REDIRECTS.has(t.op) || t.op === "<<" || t.op === "<<-") {
        const target = next();
        if (t.op === "<<" || t.op === "<<-") this.heredoc({ op: t.op, target });
        continue;
      }
      this.operator(t.op);
    }
    this.flush();
    return false;
  }

  private inCasePattern(): boolean {
    return this.cases.at(-1) === true;
  }

  private flush(): void {
    if (this.current.words.length > 0) this.out.commands.push(this.current);
    else this.out.assigned.push(...this.current.assigns);
    this.current = { words: [], assigns: [] };
  }

  private operator(op: string): void {
    if (this.inTest || op === "((…))") return;
    if (this.inCasePattern()) {
      if (op === ")") this.cases[this.cases.length - 1] = false;
      this.atCommand = true;
      return;
    }
    this.flush();
    if (this.skip?.what === "for") this.skip = undefined;
    if (op === ";;" || op === ";&" || op === ";;&") {
      if (this.cases.length > 0) this.cases[this.cases.length - 1] = true;
    } else if (op === "(") this.parens++;
    else if (op === ")") this.parens = Math.max(0, this.parens - 1);
    else if (op === "()") this.skip = undefined;
    this.atCommand = op !== ")";
  }

  private word(t: { word: string; raw: string }): void {
    const plain = t.raw === t.word;
    if (this.inTest) {
      if (t.raw === "]]") this.inTest = false;
      return;
    }
    if (this.skip) return this.skipped(t.word);
    if (this.inCasePattern()) {
      if (t.raw === "esac") this.cases.pop();
      return;
    }
    if (!this.atCommand) {
      this.current.words.push(t.word);
      return;
    }
    if (plain && this.keyword(t.word)) return;
    const assign = ASSIGNMENT.exec(t.raw);
    if (assign && this.current.words.length === 0) {
      this.current.assigns.push(assign[1]!);
      return;
    }
    this.current.words.push(t.word);
    this.atCommand = false;
  }

  // A word read as a name: a `for` variable or a function's name is noted.
  private skipped(word: string): void {
    const skip = this.skip!;
    if (skip.what === "for") {
      if (skip.words-- === 1 && NAME.test(word)) this.out.assigned.push(word);
      return;
    }
    if (skip.what === "function") this.out.functions.push(word);
    if (--skip.words === 0) this.skip = undefined;
  }

  // Handles a reserved word in command position; false when the word is not one.
  private keyword(word: string): boolean {
    if (LEADING.has(word)) return true;
    if (CLOSING.has(word)) {
      if (word === "esac") this.cases.pop();
      this.atCommand = false;
      return true;
    }
    if (word === "[[") this.inTest = true;
    else if (word === "case") {
      this.cases.push(true);
      this.skip = { words: 2, what: "case" };
    } else if (word === "for" || word === "select")
      this.skip = { words: 1, what: "for" };
    else if (word === "function") this.skip = { words: 1, what: "function" };
    else return false;
    return true;
  }
}
