// JSON with comments and trailing commas (Zed's settings.json): parsed with the place of every
// value, so acphub can set keys of one object and keep the rest of the text — the user's
// comments, order and layout — exactly as it was.
import { HubError } from "../shared/errors.js";

/** A parsed value and where its text is. */
export interface JsoncNode {
  start: number;
  end: number;
  value: unknown;
  /** An object's members, in order, with their values' nodes. */
  members?: { key: string; node: JsoncNode }[];
}

// Parses `text` (comments and trailing commas allowed); a syntax error names its line.
export function parseJsonc(text: string, file: string): JsoncNode {
  let i = 0;
  const fail = (what: string): never => {
    const line = text.slice(0, i).split("\n").length;
    throw new HubError(
      "CONFIG_INVALID",
      `${file} is not valid JSON (line ${line}: ${what}); it was left untouched`,
    );
  };
  const skip = () => {
    for (;;) {
      while (i < text.length && /\s/.test(text[i]!)) i++;
      if (text.startsWith("//", i)) {
        while (i < text.length && text[i] !== "\n") i++;
      } else if (text.startsWith("/*", i)) {
        const close = text.indexOf("*/", i + 2);
        if (close < 0) fail("a comment is not closed");
        i = close + 2;
      } else return;
    }
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    if (i >= text.length) fail("a string is not closed");
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return fail("a bad string");
    }
  };
  const value = (): JsoncNode => {
    skip();
    const start = i;
    const c = text[i];
    if (c === "{") return object(start);
    if (c === "[") return array(start);
    if (c === '"') {
      const s = string();
      return { start, end: i, value: s };
    }
    const m = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(
      text.slice(i),
    );
    if (!m)
      return fail(c === undefined ? "the text ends early" : `unexpected ${c}`);
    i += m[0].length;
    return { start, end: i, value: JSON.parse(m[0]) as unknown };
  };
  // The items of an object or array up to `close`, a trailing comma allowed.
  const items = (close: string, item: () => void) => {
    i++;
    for (;;) {
      skip();
      if (text[i] === close) return void i++;
      item();
      skip();
      if (text[i] === ",") i++;
      else if (text[i] !== close) fail(`expected , or ${close}`);
    }
  };
  const object = (start: number): JsoncNode => {
    const members: { key: string; node: JsoncNode }[] = [];
    items("}", () => {
      if (text[i] !== '"') fail("expected a key");
      const key = string();
      skip();
      if (text[i] !== ":") fail("expected :");
      i++;
      members.push({ key, node: value() });
    });
    const obj = Object.fromEntries(members.map((m) => [m.key, m.node.value]));
    return { start, end: i, value: obj, members };
  };
  const array = (start: number): JsoncNode => {
    const list: unknown[] = [];
    items("]", () => list.push(value().value));
    return { start, end: i, value: list };
  };
  const root = value();
  skip();
  if (i < text.length) fail("text after the end");
  return root;
}

// `text` with the members of the object at `path` (created when missing) set to `entries`,
// each member's value replaced in place or added at the end; everything else kept.
export function setJsoncMembers(
  text: string,
  file: string,
  path: string,
  entries: Record<string, unknown>,
): string {
  const root = parseJsonc(text, file);
  if (!root.members)
    throw new HubError(
      "CONFIG_INVALID",
      `${file} is not a JSON object; it was left untouched`,
    );
  const at = root.members.find((m) => m.key === path)?.node;
  if (!at) return addMembers(text, root, { [path]: entries }, "  ");
  if (!at.members)
    throw new HubError(
      "CONFIG_INVALID",
      `${file}: "${path}" is not an object; it was left untouched`,
    );
  const edits: { start: number; end: number; text: string }[] = [];
  const added: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entries)) {
    const member = at.members.find((m) => m.key === key);
    if (member)
      edits.push({
        start: member.node.start,
        end: member.node.end,
        text: indentJson(value, "    "),
      });
    else added[key] = value;
  }
  let out = Object.keys(added).length
    ? addMembers(text, at, added, "    ")
    : text;
  for (const e of edits.sort((a, b) => b.start - a.start))
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

// JSON text indented to sit at `indent`.
function indentJson(value: unknown, indent: string): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${indent}`);
}

// Adds members at the end of the object `node` (after its last member, or inside its braces).
function addMembers(
  text: string,
  node: JsoncNode,
  entries: Record<string, unknown>,
  indent: string,
): string {
  const body = Object.entries(entries)
    .map(
      ([k, v]) => `\n${indent}${JSON.stringify(k)}: ${indentJson(v, indent)}`,
    )
    .join(",");
  const last = node.members?.at(-1);
  if (last)
    return (
      text.slice(0, last.node.end) + "," + body + text.slice(last.node.end)
    );
  const close = node.end - 1;
  const outer = indent.slice(2);
  return (
    text.slice(0, node.start + 1) + body + `\n${outer}` + text.slice(close)
  );
}
