// The command check reads scripts with a real tokenizer: quotes, escapes, newlines, comments,
// here-documents and command substitutions.
import { describe, expect, it } from "vitest";
import { isShellLine, scriptCommands } from "../../src/host/shell-script.js";
import {
  DEFAULT_ALLOWED_COMMANDS,
  DEFAULT_DENY_RULES,
  refusal,
} from "../../src/host/command-policy.js";

const policy = { allow: DEFAULT_ALLOWED_COMMANDS, deny: DEFAULT_DENY_RULES };

describe("scriptCommands", () => {
  it.each([
    ['python3 -c "import socket;s=1;s.close()"', ["python3"]],
    ["echo 'a;b|c&d' && ls", ["echo", "ls"]],
    ["echo a\\;nc", ["echo"]],
    ["echo a\nnc -h", ["echo", "nc"]],
    ["echo a # ; nc -h\nls", ["echo", "ls"]],
    // An unquoted here-doc body is code for $(…) and backticks; a quoted one is text.
    ["cat <<EOF > f\nnc -h\n$(curl x)\nEOF\nls", ["cat", "curl", "ls"]],
    ["cat <<'EOF' > f\nnc -h\n$(curl x)\nEOF\nls", ["cat", "ls"]],
    ["cat <<EOF\n`nc`\nEOF", ["cat", "nc"]],
    ["cat <<<x\nnc -h\nls", ["cat", "nc", "ls"]],
    ['cat <<< "$(nc)"', ["nc", "cat"]],
    ["echo a # it's\nnc", ["echo", "nc"]],
    ["n\\\nc -h", ["nc"]],
    ["echo ok \\\n; nc", ["echo", "nc"]],
    ["case $x in a|b) nc;; (c) ls;; esac; wc", ["nc", "ls", "wc"]],
    ["[[ -f x && $(nc) ]] && ls", ["nc", "ls"]],
    ["echo $'\\x6ec'; $'\\x6ec' -h", ["echo", "nc"]],
    ["f() { nc; }; f", ["nc", "f"]],
    ["echo $( (nc) )", ["nc", "echo"]],
    ["x=(a $(nc) b); ls 2>&1 >/dev/null", ["nc", "ls"]],
    ["echo ${X:-$(nc)} $((1+$(wc)))", ["nc", "wc", "echo"]],
    ["cat <<-'END'\n\tnc\n\tEND\nwc", ["cat", "wc"]],
    ['ls $(nc -h) `curl x` "$(ssh y)"', ["nc", "curl", "ssh", "ls"]],
    ["FOO=1 BAR=2 make test > out.txt 2>&1", ["make"]],
    ["if true; then nc -h; fi", ["true", "nc"]],
    ["(cd x && npm test) | tee log", ["cd", "npm", "tee"]],
    ['echo "multi\nline;nc" && ls', ["echo", "ls"]],
  ])("%j → %j", (script, expected) => {
    expect(scriptCommands(script).sort()).toEqual([...expected].sort());
  });
});

describe("scriptCommands, deeply nested", () => {
  it("a script too deeply nested to read is named so that the allowlist refuses it", () => {
    let script = "nc -h";
    for (let i = 0; i < 10; i++)
      script = `echo \`${script.replace(/`/g, "")}\``;
    expect(scriptCommands("x=$(" + script + ")", 9)).toEqual([
      "(nested too deep)",
    ]);
  });
});

describe("isShellLine", () => {
  it.each([
    ["echo SHELL-OK && touch /work/made-by-shell", [], true],
    ["ls /tmp/x/work", [], true],
    ["ls", [], false],
    ["/usr/bin/git", [], false],
    ["ls", ["-la"], false],
  ] as const)("%j %j → %s", (command, args, expected) => {
    expect(isShellLine(command, args)).toBe(expected);
  });
});

describe("refusal under the OS sandbox", () => {
  it("keeps the deny rules but no longer refuses other programs", () => {
    expect(refusal(policy, "nc", ["-h"], false)).toMatch(/"nc" is not in/);
    expect(refusal(policy, "nc", ["-h"], true)).toBeUndefined();
    expect(refusal(policy, "rm -rf / --version", [], true)).toMatch(
      /deny rule "rm-rf-root-or-home"/,
    );
  });
});
