import { describe, expect, it } from "vitest";
import {
  commandLine,
  DEFAULT_ALLOWED_COMMANDS,
  DEFAULT_DENY_RULES,
  refusal,
} from "../../src/host/command-policy.js";
import { sliceLines } from "../../src/host/fs-service.js";
import { TailBuffer } from "../../src/shared/tail-buffer.js";
import { subjectOf } from "../../src/host/permission-engine.js";
import { withDefaults } from "../../src/shared/defaults.js";
import { SecretMasker } from "../../src/shared/secrets.js";

describe("TailBuffer, as terminal output", () => {
  it("keeps the tail and never starts inside a UTF-8 character", () => {
    const b = new TailBuffer(5);
    b.push(Buffer.from("ééé")); // 6 bytes: the cut lands inside the first é
    expect(b.text()).toBe("éé");
    expect(b.truncated).toBe(true);
  });
  it("is exact when nothing is dropped, across many chunks", () => {
    const b = new TailBuffer(100);
    for (const part of ["ab", "cd", "ef"]) b.push(Buffer.from(part));
    expect([b.text(), b.truncated]).toEqual(["abcdef", false]);
    for (let i = 0; i < 1000; i++) b.push(Buffer.from("0123456789"));
    expect(b.text()).toBe("0123456789".repeat(10));
  });
  it("a zero limit keeps nothing but reports truncation", () => {
    const b = new TailBuffer(0);
    b.push(Buffer.from("x"));
    expect([b.text(), b.truncated]).toEqual(["", true]);
  });
});

describe("command policy", () => {
  const policy = { allow: DEFAULT_ALLOWED_COMMANDS, deny: DEFAULT_DENY_RULES };
  it.each([
    ["npm", ["test"]],
    ["sh", ["-c", "npm run build 2>&1 | tail -n 20; exit 0"]],
    ["bash", ["-c", "if test -f x; then cat x; fi"]],
    ["git", ["status"]],
    ["rm", ["-rf", "dist"]],
    ["/usr/bin/python3", ["-m", "pytest"]],
  ])("allows %s %j", (command, args) => {
    expect(refusal(policy, command, args)).toBeUndefined();
  });
  it.each([
    ["sh", ["-c", "eval $(cat x)"], /"eval" is not in the allowed/],
    ["bash", ["-c", "ls && curl x"], /"curl" is not in the allowed/],
    ["rm", ["-r", "-f", "/"], /rm-rf-root-or-home/],
    ["sh", ["-c", "rm -rf $HOME"], /rm-rf-root-or-home/],
  ])("refuses %s %j", (command, args, reason) => {
    expect(refusal(policy, command, args)).toMatch(reason);
  });
  it("quotes arguments in the command line it reports", () => {
    expect(commandLine("sh", ["-c", "echo hi"])).toBe('sh -c "echo hi"');
  });
});

describe("small helpers", () => {
  it("sliceLines honours 1-based line and limit", () => {
    expect(sliceLines("a\nb\nc\nd", 2, 2)).toBe("b\nc");
    expect(sliceLines("a\nb", undefined, 1)).toBe("a");
    expect(sliceLines("a\nb", 5, 1)).toBe("");
    expect(sliceLines("a\nb")).toBe("a\nb");
  });
  it("SecretMasker masks values of secret-looking variables only", () => {
    const m = SecretMasker.fromEnv({
      OPENAI_API_KEY: "sk-123456",
      HOME: "/root",
      GH_TOKEN: "ghp_abcdef",
      SHORT_TOKEN: "abc",
    });
    expect(m.mask("key sk-123456 at /root with ghp_abcdef and abc")).toBe(
      "key *** at /root with *** and abc",
    );
    expect(m.maskValue({ a: ["sk-123456"] })).toEqual({ a: ["***"] });
  });
  it("SecretMasker masks serialized JSON where the secret is escaped, keeping it valid", () => {
    const m = new SecretMasker(['pa"ss\\word']);
    const json = JSON.stringify({ text: 'say pa"ss\\word now' });
    const masked = m.maskJson(json);
    expect(JSON.parse(masked)).toEqual({ text: "say *** now" });
  });
  it("subjectOf prefers the command the tool call carries", () => {
    const base = { sessionId: "s", options: [] };
    expect(
      subjectOf({
        ...base,
        toolCall: {
          toolCallId: "t",
          title: "Run",
          rawInput: { command: ["npm", "test"] },
        },
      }),
    ).toBe("npm test");
    expect(
      subjectOf({ ...base, toolCall: { toolCallId: "t", title: "Edit a.ts" } }),
    ).toBe("Edit a.ts");
  });
  it("withDefaults ignores undefined overrides", () => {
    expect(withDefaults({ a: 1, b: 2 }, { a: undefined, b: 3 })).toEqual({
      a: 1,
      b: 3,
    });
  });
});
