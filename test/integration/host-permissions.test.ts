// The permission engine in front of a real agent: rules before the mode, the agent's own
// option ids, remembered "always" answers, cancel, and fs/terminal requests under the policy.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PermissionEvent, RunEvent } from "../../src/contracts/events.js";
import { ANSWERED_BY } from "../../src/contracts/users.js";
import { createHost } from "../../src/host/create-host.js";
import { DecisionMemory } from "../../src/host/decision-memory.js";
import {
  PermissionEngine,
  type Approver,
} from "../../src/host/permission-engine.js";
import { hostedMock, requests } from "../helpers/host.js";
import { collect, connectMock, steps, tempDir } from "../helpers/mock.js";

const workspace = () => {
  const dir = join(tempDir(), "ws");
  mkdirSync(dir);
  return dir;
};
const permissions = (events: RunEvent[]) =>
  events.filter((e): e is PermissionEvent => e.type === "permission");
const ask = (
  title: string,
  kind: string,
  extra: Record<string, unknown> = {},
) => ({ permission: { title, kind, ...extra }, onReject: "continue" });

describe("permission modes and rules", () => {
  it("approve-reads allows reads and refuses edits, answering with the agent's own ids", async () => {
    const h = await hostedMock("approve-reads");
    try {
      const options = [
        { optionId: "proceed_once", name: "Yes", kind: "allow_once" },
        { optionId: "cancel", name: "No", kind: "reject_once" },
      ];
      const events = await h.turn(
        workspace(),
        ask("Read file", "read", { options }),
        ask("Edit file", "edit", { options }),
        ask("Mystery", "other", { options }),
      );
      expect(permissions(events).map((p) => p.outcome)).toEqual([
        { outcome: "selected", optionId: "proceed_once" },
        { outcome: "selected", optionId: "cancel" },
        { outcome: "selected", optionId: "cancel" },
      ]);
    } finally {
      await h.close();
    }
  });

  it("with no fitting option the answer is cancelled, not an invented id", async () => {
    const h = await hostedMock("deny-all");
    try {
      const events = await h.turn(
        workspace(),
        ask("Edit", "edit", {
          options: [{ optionId: "ok", name: "OK", kind: "allow_once" }],
        }),
      );
      expect(permissions(events)[0]?.outcome).toEqual({ outcome: "cancelled" });
    } finally {
      await h.close();
    }
  });

  it("config rules are checked before the mode, for permissions and for the requests themselves", async () => {
    const engine = new PermissionEngine({
      mode: "deny-all",
      rules: [
        { kind: "execute", command: "^npm test$", action: "allow" },
        { title: "^Delete", action: "deny" },
        { kind: ["edit"], action: "allow" },
      ],
    });
    const host = createHost({ engine });
    const agent = await connectMock([], { host });
    try {
      const ws = workspace();
      const session = await agent.newSession({ cwd: ws });
      const events = await collect(
        session.prompt(
          steps(
            ask("Run tests", "execute", {
              toolCall: { rawInput: { command: "npm test" } },
            }),
            ask("Run other", "execute", {
              toolCall: { rawInput: { command: "npm publish" } },
            }),
            ask("Delete all", "edit"),
            ask("Edit a.ts", "edit"),
            { writeFile: { path: join(ws, "a.ts"), content: "x" } },
            { readFile: { path: join(ws, "a.ts") } },
          ),
        ),
      );
      expect(
        permissions(events).map((p) => [
          p.outcome.outcome === "selected" ? p.outcome.optionId : "cancelled",
          p.reason,
        ]),
      ).toEqual([
        ["allow", "config rule permissions.rules[0]"],
        ["reject", 'deny-all mode refused "Run other" (execute)'],
        ["reject", "config rule permissions.rules[1]"],
        ["allow", "config rule permissions.rules[2]"],
      ]);
      // The write matches rule 2 (kind edit); the read meets deny-all.
      expect(requests(events).map((r) => r.ok)).toEqual([true, false]);
    } finally {
      await agent.close();
    }
  });

  it("an agent that writes without asking meets the policy; an allowed permission grants its path for the turn", async () => {
    const ws = workspace();
    const h = await hostedMock("approve-reads");
    try {
      const blocked = await h.turn(ws, {
        writeFile: { path: join(ws, "x.txt"), content: "x" },
      });
      expect(requests(blocked)[0]?.error?.message).toMatch(
        /approve-reads mode refuses write without a granted permission/,
      );
      const audit = blocked.find((e) => e.type === "audit");
      expect(audit).toMatchObject({
        action: "write",
        allowed: false,
        path: join(ws, "x.txt"),
      });
    } finally {
      await h.close();
    }
    const approver: Approver = async (request) => ({
      outcome: "selected",
      optionId: request.options[0]!.optionId,
    });
    const asking = await hostedMock("ask", { approver });
    try {
      const events = await asking.turn(
        ws,
        ask("Edit x", "edit", { toolCall: { rawInput: { path: "x.txt" } } }),
        { writeFile: { path: join(ws, "x.txt"), content: "granted" } },
      );
      expect(requests(events).map((r) => r.ok)).toEqual([true]);
      expect(readFileSync(join(ws, "x.txt"), "utf8")).toBe("granted");
      // A new turn starts without the grant: the approver is asked for the write itself.
      const asked: string[] = [];
      const recording = await hostedMock("ask", {
        approver: async (r) => (
          asked.push(r.toolCall.title ?? ""),
          { outcome: "selected", optionId: "reject_once" }
        ),
      });
      const next = await recording.turn(ws, {
        writeFile: { path: join(ws, "x.txt"), content: "again" },
      });
      expect(asked).toEqual([`Write ${join(ws, "x.txt")}`]);
      expect(requests(next)[0]?.ok).toBe(false);
      await recording.close();
    } finally {
      await asking.close();
    }
  });
});

describe("remembered decisions", () => {
  it("an allow_always answer is remembered per workspace, persisted, and answers the next request", async () => {
    const stateDir = tempDir();
    const ws = workspace();
    const asked: string[] = [];
    const approver: Approver = async (request) => {
      asked.push(request.toolCall.title ?? "");
      return { outcome: "selected", optionId: "allow-always" };
    };
    const engine = (memory: DecisionMemory) =>
      new PermissionEngine({ mode: "ask", approver, memory });
    const run = async (memory: DecisionMemory, cwd: string) => {
      const host = createHost({ engine: engine(memory) });
      const agent = await connectMock([], { host });
      try {
        const session = await agent.newSession({ cwd });
        return await collect(
          session.prompt(
            steps(
              ask("Run build", "execute", {
                toolCall: { rawInput: { command: "make" } },
              }),
            ),
          ),
        );
      } finally {
        await agent.close();
      }
    };
    await run(DecisionMemory.inStateDir(stateDir), ws);
    expect(asked).toHaveLength(1);
    const saved = JSON.parse(
      readFileSync(join(stateDir, "permissions.json"), "utf8"),
    );
    expect(saved).toEqual([
      expect.objectContaining({
        user: "admin",
        workspace: ws,
        kind: "execute",
        subject: "make",
        decision: "allow",
      }),
    ]);
    // A fresh engine (a restart) reads it back and answers without asking.
    const events = await run(DecisionMemory.inStateDir(stateDir), ws);
    expect(asked).toHaveLength(1);
    expect(permissions(events)[0]).toMatchObject({
      outcome: { outcome: "selected", optionId: "allow" },
      reason: expect.stringMatching(/remembered decision/),
    });
    // Another workspace is asked again.
    await run(DecisionMemory.inStateDir(stateDir), workspace());
    expect(asked).toHaveLength(2);
  });
});

describe("remembered decisions on a hub with users", () => {
  it("an always answer is its user's, kept only in a session they own, and answers only there", async () => {
    const stateDir = tempDir();
    const ws = workspace();
    const asked: string[] = [];
    let answerer = "bob";
    const owners = new Map<string, string>();
    const approver: Approver = async () => {
      asked.push(answerer);
      const outcome = { outcome: "selected", optionId: "allow-always" };
      return Object.assign(outcome, { [ANSWERED_BY]: answerer }) as never;
    };
    const memory = DecisionMemory.inStateDir(stateDir);
    const engine = new PermissionEngine({
      mode: "ask",
      approver,
      memory,
      ownerOf: async (id) => owners.get(id),
    });
    const host = createHost({ engine });
    const agent = await connectMock([], { host });
    const make = steps(
      ask("Run build", "execute", {
        toolCall: { rawInput: { command: "make" } },
      }),
    );
    // A session of `owner` in the workspace, and the reasons of its turn's answers.
    const turn = async (owner: string) => {
      const session = await agent.newSession({ cwd: ws });
      owners.set(session.id, owner);
      const events = await collect(session.prompt(make));
      return permissions(events).map((e) => e.reason);
    };
    try {
      expect(await turn("alice")).toEqual([
        "approver chose allow_always; not remembered: bob answered in a session of alice",
      ]);
      expect(memory.list()).toEqual([]);
      answerer = "alice";
      expect(await turn("alice")).toEqual(["approver chose allow_always"]);
      expect(memory.list()).toEqual([
        expect.objectContaining({ user: "alice", subject: "make" }),
      ]);
      expect((await turn("alice"))[0]).toMatch(/^remembered decision/);
      answerer = "bob";
      expect((await turn("bob"))[0]).toBe("approver chose allow_always");
      expect(asked).toEqual(["bob", "alice", "bob"]);
    } finally {
      await agent.close();
    }
  });
});

describe("cancel", () => {
  it("answers pending permission requests cancelled, distinct from a refusal", async () => {
    let notify!: () => void;
    const asked = new Promise<void>((r) => (notify = r));
    const h = await hostedMock("ask", {
      approver: () => (notify(), new Promise(() => undefined)),
    });
    try {
      const session = await h.agent.newSession({ cwd: workspace() });
      const controller = new AbortController();
      const run = session.prompt(steps(ask("Edit", "edit")), {
        signal: controller.signal,
      });
      const events = collect(run);
      await asked;
      controller.abort();
      expect(permissions(await events)[0]).toMatchObject({
        decidedBy: "cancelled",
        outcome: { outcome: "cancelled" },
      });
      expect((await run.result).stopReason).toBe("cancelled");
    } finally {
      await h.close();
    }
  });

  it("ask mode with nobody to ask refuses deterministically and says so", async () => {
    const h = await hostedMock("ask");
    try {
      const events = await h.turn(workspace(), ask("Edit", "edit"));
      expect(permissions(events)[0]).toMatchObject({
        outcome: { optionId: "reject" },
        reason: expect.stringMatching(/nobody to ask/),
      });
    } finally {
      await h.close();
    }
  });
});

describe("secrets", () => {
  it("are masked in audit events", async () => {
    const ws = workspace();
    writeFileSync(join(ws, "f"), "");
    const h = await hostedMock("approve-all", {
      env: { PATH: process.env["PATH"], MY_API_KEY: "sk-live-123456" },
    });
    try {
      const events = await h.turn(ws, {
        terminal: { command: "echo", args: ["sk-live-123456"] },
      });
      const audit = events.find((e) => e.type === "audit");
      expect(audit).toMatchObject({ command: "echo ***" });
    } finally {
      await h.close();
    }
  });
});
