// A workflow's shell step before the permission policy: a config deny rule wins over the
// file's pre-approval, pre-approval spares the question (deny-all still refuses), and otherwise approve-reads and ask
// put the command to the approver (refused when there is none); approve-all and deny-all decide.
import { describe, expect, it } from "vitest";
import type { PermissionMode } from "../../src/config/schema.js";
import {
  PermissionEngine,
  type Approver,
} from "../../src/host/permission-engine.js";

const signal = new AbortController().signal;

// The engine's verdict on `touch MADE`, and the questions its approver was asked.
async function verdict(
  mode: PermissionMode,
  preapproved: boolean,
  options: { answer?: string; deny?: boolean } = {},
) {
  const asked: string[] = [];
  const approver: Approver | undefined = options.answer
    ? async (request) => {
        asked.push(String(request.toolCall.title));
        return { outcome: "selected", optionId: options.answer! };
      }
    : undefined;
  const engine = new PermissionEngine({
    mode,
    approver,
    rules: options.deny ? [{ command: "touch", action: "deny" }] : [],
  });
  const v = await engine.checkOwnCommand(
    "s",
    "/w",
    "sh -c 'touch MADE'",
    signal,
    ["touch MADE"],
    preapproved,
  );
  return { ...v, asked };
}

describe("workflow shell steps and the permission policy", () => {
  it("a deny rule wins over the file's pre-approval", async () => {
    const v = await verdict("approve-all", true, { deny: true });
    expect([v.allowed, v.reason]).toEqual([
      false,
      "config rule permissions.rules[0]",
    ]);
  });

  it("a pre-approved literal command runs without a question, but not under deny-all", async () => {
    for (const mode of ["ask", "approve-reads"] as const) {
      const v = await verdict(mode, true, { answer: "reject_once" });
      expect([v.allowed, v.asked]).toEqual([true, []]);
    }
    expect((await verdict("deny-all", true)).allowed).toBe(false);
  });

  it("approve-reads and ask put the command to the approver", async () => {
    for (const mode of ["ask", "approve-reads"] as const) {
      const yes = await verdict(mode, false, { answer: "allow_once" });
      expect([yes.allowed, yes.asked]).toEqual([
        true,
        ["Run sh -c 'touch MADE'"],
      ]);
      const no = await verdict(mode, false, { answer: "reject_once" });
      expect(no.allowed).toBe(false);
    }
  });

  it("with nobody to ask it is refused; approve-all and deny-all decide alone", async () => {
    const alone = await verdict("approve-reads", false);
    expect(alone).toEqual({
      allowed: false,
      reason:
        "approve-reads mode: nobody to ask (no approver) for a workflow command",
      asked: [],
    });
    expect((await verdict("approve-all", false)).allowed).toBe(true);
    expect((await verdict("deny-all", false)).allowed).toBe(false);
  });
});
