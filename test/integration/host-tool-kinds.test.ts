// Real agents ask permission without `toolCall.kind` (and sometimes without a title) for a
// tool call they announced a moment before: the host recovers the kind from the announcement,
// else infers it from the title and rawInput, so the policy modes and the person asked see it.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import type { PermissionEvent, RunEvent } from "../../src/contracts/events.js";
import { hostedMock } from "../helpers/host.js";
import { tempDir } from "../helpers/mock.js";

const workspace = () => {
  const dir = join(tempDir(), "ws");
  mkdirSync(dir);
  return dir;
};
const decisions = (events: RunEvent[]) =>
  events
    .filter((e): e is PermissionEvent => e.type === "permission")
    .map((p) => [
      p.outcome.outcome === "selected" ? p.outcome.optionId : "cancelled",
      p.reason,
    ]);
const announce = (toolCallId: string, title: string, kind: string) => ({
  toolCall: { toolCallId, title, kind, status: "pending" },
});
// A permission step as a real agent sends it: no kind, maybe no title.
const askWithout = (
  toolCallId: string,
  extra: Record<string, unknown> = {},
) => ({
  permission: { toolCallId, kind: null, title: null, ...extra },
  onReject: "continue",
});

describe("the kind of a permission request that lacks one", () => {
  it("is the kind its tool call was announced with, for the policy modes", async () => {
    const h = await hostedMock("approve-reads");
    try {
      const events = await h.turn(
        workspace(),
        announce("r1", "Read notes.md", "read"),
        askWithout("r1"),
        announce("x1", "Terminal", "execute"),
        { toolCallUpdate: { toolCallId: "x1", title: "`ls`" } },
        askWithout("x1"),
      );
      expect(decisions(events)).toEqual([
        ["allow", "approve-reads mode allows read"],
        ["reject", 'approve-reads mode refused "`ls`" (kind execute)'],
      ]);
    } finally {
      await h.close();
    }
  });

  it("reaches the person asked, with the announced title when the request has none", async () => {
    const seen: RequestPermissionRequest["toolCall"][] = [];
    const h = await hostedMock("ask", {
      approver: async (request) => {
        seen.push(request.toolCall);
        return { outcome: "selected", optionId: "reject" };
      },
    });
    try {
      await h.turn(
        workspace(),
        announce("w1", "Write hello.txt", "edit"),
        askWithout("w1"),
      );
      expect(seen).toEqual([
        { toolCallId: "w1", title: "Write hello.txt", kind: "edit" },
      ]);
    } finally {
      await h.close();
    }
  });

  it("is inferred from rawInput, then the title, when the tool call was never announced", async () => {
    const h = await hostedMock("approve-reads");
    try {
      const events = await h.turn(
        workspace(),
        askWithout("a", { toolCall: { rawInput: { command: "rm -r x" } } }),
        askWithout("b", {
          toolCall: { rawInput: { file_path: "/w/a.txt", content: "x" } },
        }),
        askWithout("c", { title: "Read a.txt", toolCall: { rawInput: {} } }),
        askWithout("d", { title: "Mystery" }),
      );
      expect(decisions(events)).toEqual([
        ["reject", 'approve-reads mode refused "rm -r x" (kind execute)'],
        ["reject", 'approve-reads mode refused "b" (kind edit)'],
        ["allow", "approve-reads mode allows read"],
        ["reject", 'approve-reads mode refused "Mystery" (kind other)'],
      ]);
    } finally {
      await h.close();
    }
  });
});
