// Issue 16, item 10: every flag the README and docs/cli.md show on an `acphub …` command line
// exists in that command's --help, so the manual cannot promise what the CLI rejects.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const DOCS = ["README.md", "docs/cli.md", "docs/editors.md"];

// Every `acphub …` command line in a document: inline code spans and code block lines.
function commandLines(file: string): string[] {
  const text = readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
  const spans = [
    ...[...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].flatMap((m) =>
      m[1]!.split("\n"),
    ),
    ...[...text.replace(/```[\s\S]*?```/g, "").matchAll(/`([^`\n]+)`/g)].map(
      (m) => m[1]!,
    ),
  ];
  return spans
    .map((s) => s.replace(/node dist\/cli\/main\.js/g, "acphub"))
    .filter((s) => /(^|[\s|&;(])acphub\s/.test(s))
    .map((s) => s.slice(s.search(/acphub\s/)).replace(/\s#.*$/, ""));
}

const helpCache = new Map<string, Promise<string>>();
function help(path: string[]): Promise<string> {
  const key = path.join(" ");
  let text = helpCache.get(key);
  if (!text) {
    text = runCli([...path, "--help"]).then((r) => r.stdout);
    helpCache.set(key, text);
  }
  return text;
}

// The subcommand names a --help lists under "Commands:".
function subcommands(helpText: string): string[] {
  const section = helpText.split("Commands:\n")[1] ?? "";
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!);
}

// The command paths a line names (`sessions list|show ID|delete ID` names three) and the
// flags it uses.
async function parse(
  line: string,
): Promise<{ paths: string[][]; flags: string[] }> {
  const flags = [...line.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map(
    (m) => m[0],
  );
  const tokens = line.split(/\s+/).slice(1);
  const parent: string[] = [];
  for (const [i, token] of tokens.entries()) {
    if (token.startsWith("-") || token.startsWith("[-")) continue;
    const known = subcommands(await help(parent));
    const pieces = (t: string) =>
      t.split(/\\?\|/).filter((n) => known.includes(n));
    const names = pieces(token);
    if (names.length === 0) break;
    if (token.includes("|")) {
      // Alternatives at this level run on through the rest of the line.
      const all = [...names, ...tokens.slice(i + 1).flatMap(pieces)];
      return { paths: all.map((n) => [...parent, n]), flags };
    }
    parent.push(names[0]!);
  }
  return { paths: [parent], flags };
}

describe("the docs and --help agree", () => {
  it.each(DOCS)(
    "every flag on an acphub command line in %s exists",
    async (file) => {
      const lines = commandLines(file);
      expect(lines.length).toBeGreaterThan(0);
      const global = await help([]);
      const missing: string[] = [];
      for (const line of lines) {
        const { paths, flags } = await parse(line);
        for (const path of paths) {
          const text = await help(path);
          for (const flag of flags) {
            // An option line of --help: "  -o, --output <file>  …" or "  --json  …".
            const re = new RegExp(`^ +(-[a-zA-Z], )?${flag}( |$)`, "m");
            if (!re.test(text) && !re.test(global))
              missing.push(
                `${file}: "${line}": acphub ${path.join(" ")} has no ${flag}`,
              );
          }
        }
      }
      expect(missing).toEqual([]);
    },
  );

  it("sessions --help says who records sessions, and every subcommand's --json", async () => {
    const text = await help(["sessions"]);
    expect(text).toContain(
      "every session run, chat and acp (editors) recorded",
    );
    for (const sub of ["list", "show", "delete", "import"])
      expect(await help(["sessions", sub])).toMatch(/--json/);
    expect(await help(["sessions", "export"])).toMatch(/always JSON/);
  });
});
