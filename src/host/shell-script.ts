// Reads shell scripts the way a shell would, far enough to name every command they run:
// quotes, escapes, here-documents, newlines, `$(…)` and backticks. Built on shell-quote's
// tokenizer; only newlines and here-document bodies (which it does not know) are handled here.
import { parse, type ParseEntry } from "shell-quote";

/** Operators after which the next word is a command. */
const COMMAND_STARTS: ReadonlySet<string> = new Set([
  ";",
  ";;",
  "&",
  "&&",
  "||",
  "|",
  "|&",
  "(",
  "<(",
]);

/** Shell keywords after which the next word is still in command position. */
// prettier-ignore
const KEYWORDS: ReadonlySet<string> = new Set([
  "if", "then", "else", "elif", "do", "while", "until", "!", "{", "time",
]);

// True when `command` with no args is a shell line (an editor would run it through `sh -c`).
export function isShellLine(command: string, args: readonly string[]): boolean {
  return args.length === 0 && /[\s;&|<>()$`"'\\*?~{}[\]#=!]/.test(command);
}

// Splits a script at unquoted newlines (each ends a command, like `;`) and drops
// here-document bodies.
function logicalLines(script: string): string[] {
  const out: string[] = [];
  let current = "";
  let quote: "'" | '"' | undefined;
  const heredocs: string[] = [];
  const lines = script.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!quote) collectHeredocs(line, heredocs);
    for (let j = 0; j < line.length; j++) {
      const c = line[j]!;
      if (c === "\\" && quote !== "'") j++;
      else if (c === quote) quote = undefined;
      else if (!quote && (c === "'" || c === '"')) quote = c;
    }
    current += line;
    if (quote) current += "\n";
    else {
      out.push(current);
      current = "";
    }
    // Skip each here-document body up to its delimiter line.
    while (!quote && heredocs.length > 0 && i + 1 < lines.length) {
      const delimiter = heredocs[0]!;
      i++;
      if (lines[i]!.replace(/^\t+/, "") === delimiter) heredocs.shift();
    }
  }
  if (current) out.push(current);
  return out;
}

// The delimiters of the here-documents a line opens (`<<EOF`, `<<-'EOF'`, `<< "EOF"`).
function collectHeredocs(line: string, into: string[]): void {
  for (const m of line.matchAll(/<<-?\s*(['"]?)([A-Za-z0-9_.-]+)\1/g))
    into.push(m[2]!);
}

// Scripts nested in a word: `$(…)` (also inside double quotes).
function nestedScripts(word: string): string[] {
  const found: string[] = [];
  let start = word.indexOf("$(");
  while (start >= 0) {
    let depth = 0;
    let end = start + 1;
    for (; end < word.length; end++) {
      if (word[end] === "(") depth++;
      else if (word[end] === ")" && --depth === 0) break;
    }
    found.push(word.slice(start + 2, end));
    start = word.indexOf("$(", end);
  }
  return found;
}

// The operator of an entry (`glob` for a pattern), or undefined for a word or a comment.
const opOf = (e: ParseEntry): string | undefined =>
  typeof e === "object" && "op" in e ? e.op : undefined;

// The first word of every simple command in a shell script, nested ones included.
export function scriptCommands(script: string, depth = 0): string[] {
  // Too deep to read: named as a command no allowlist has, so the check refuses it.
  if (depth > 8) return ["(nested too deep)"];
  return logicalLines(script).flatMap((line) => lineCommands(line, depth));
}

// The command words of one logical line.
function lineCommands(line: string, depth: number): string[] {
  const commands: string[] = [];
  // Backticks first: the tokenizer would split their content into words.
  const flat = line.replace(/`([^`]*)`/g, (_, inner: string) => {
    commands.push(...scriptCommands(inner, depth + 1));
    return "$BACKTICK";
  });
  const entries = parse(flat, (name) => `$${name}`);
  let atStart = true;
  let skipNext = false;
  for (const entry of entries) {
    const op = opOf(entry);
    if (op !== undefined) {
      if (op === "glob") continue;
      atStart = COMMAND_STARTS.has(op);
      skipNext = !atStart && /[<>]/.test(op);
      continue;
    }
    const word = typeof entry === "string" ? entry : "";
    for (const nested of nestedScripts(word))
      commands.push(...scriptCommands(nested, depth + 1));
    if (skipNext) {
      skipNext = false;
      continue;
    }
    if (!atStart || word === "" || word === "$") continue;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue;
    commands.push(word);
    atStart = KEYWORDS.has(word);
  }
  return commands;
}
