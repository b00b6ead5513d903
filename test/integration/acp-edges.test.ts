// Limits, malformed input and shutdown of `acphub acp`: clear errors, no crash, no stray byte
// on stdout, nothing left running.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  INIT,
  mockConfig,
  onlyProtocolOnStdout,
  startEditor,
  openSession,
  editorTracker,
} from "../helpers/editor.js";
import { deferred } from "../../src/shared/abort.js";
import { groupGone, steps, tempDir, waitFor } from "../helpers/mock.js";

const editors = editorTracker();
afterEach(() =>
  editors.cleanup((e) => expect(onlyProtocolOnStdout(e.stdout())).toBe(true)),
);

function start(extra: Record<string, unknown> = {}) {
  const home = tempDir();
  mockConfig(home, [], extra);
  const e = editors.track(startEditor(home));
  return { e, home };
}

const text = (t: string) => [{ type: "text", text: t }];

// Waits until the running turn's first text reached the editor: the turn is under way.
async function turnStarted(e: {
  updates: () => Record<string, unknown>[];
}): Promise<void> {
  const said = () => JSON.stringify(e.updates()).includes('"text":"started"');
  expect(await waitFor(said)).toBe(true);
}

describe("limits", () => {
  it("refuses an oversized prompt, per block and in total", async () => {
    const { e, home } = start({ limits: { maxPromptBytes: 1000 } });
    const sessionId = await openSession(e, home);
    await expect(
      e.agent.request("session/prompt", {
        sessionId,
        prompt: text("x".repeat(2000)),
      }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(
        /prompt block 0 is \d+ bytes; the limit is 1000/,
      ),
    });
    const blocks = Array.from({ length: 3 }, () => ({
      type: "text",
      text: "y".repeat(400),
    }));
    await expect(
      e.agent.request("session/prompt", { sessionId, prompt: blocks }),
    ).rejects.toThrow(/prompt request is \d+ bytes .*; the limit is 1000/);
    // `_meta` is stored with the prompt: it counts (issue 34, item 15).
    await expect(
      e.agent.request("session/prompt", {
        sessionId,
        prompt: text("small"),
        _meta: { pad: "m".repeat(2000) },
      }),
    ).rejects.toThrow(
      /prompt request is \d+ bytes \(its blocks, _meta and every other field\); the limit is 1000/,
    );
    expect(
      await e.agent.request("session/prompt", {
        sessionId,
        prompt: text("small"),
      }),
    ).toEqual({ stopReason: "end_turn" });
  });

  it("rate-limits session creation", async () => {
    const { e, home } = start({ limits: { sessionsPerMinute: 2 } });
    await e.agent.request("initialize", INIT);
    const open = () =>
      e.agent.request("session/new", { cwd: home, mcpServers: [] });
    await open();
    await open();
    await expect(open()).rejects.toThrow(
      /too many new sessions: the limit is 2 per minute/,
    );
  });

  it("refuses a second prompt while a turn runs, and an unknown session", async () => {
    const home = tempDir();
    mockConfig(home);
    // The first turn waits on a permission question to this editor: while it is unanswered the
    // turn is certainly running, however slow the machine.
    const asked = deferred<void>();
    const answer = deferred<unknown>();
    const e = editors.track(
      startEditor(home, {
        onRequest: () => {
          asked.resolve();
          return answer.promise;
        },
      }),
    );
    const sessionId = await openSession(e, home);
    const slow = e.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ permission: { title: "Edit" } }, { text: "done" })),
    });
    await asked.promise;
    await expect(
      e.agent.request("session/prompt", { sessionId, prompt: text("again") }),
    ).rejects.toThrow(/already has a turn running/);
    answer.resolve({ outcome: { outcome: "selected", optionId: "reject" } });
    expect(await slow).toEqual({ stopReason: "end_turn" });
    await expect(
      e.agent.request("session/prompt", {
        sessionId: "hub-nope",
        prompt: text("x"),
      }),
    ).rejects.toMatchObject({ code: -32002 });
    await expect(
      e.agent.request("session/load", {
        sessionId: "hub-nope",
        cwd: home,
        mcpServers: [],
      }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it("session/cancel ends the running turn with cancelled", async () => {
    const { e, home } = start();
    const sessionId = await openSession(e, home);
    const slow = e.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "started" }, { sleep: 20_000 })),
    });
    await turnStarted(e);
    await e.agent.notify("session/cancel", { sessionId });
    expect(await slow).toEqual({ stopReason: "cancelled" });
  });
});

describe("$/cancel_request", () => {
  it("cancelling the editor's prompt request cancels the agent's turn", async () => {
    const { e, home } = start();
    const sessionId = await openSession(e, home);
    const controller = new AbortController();
    const slow = e.agent.request(
      "session/prompt",
      {
        sessionId,
        prompt: text(steps({ text: "started" }, { sleep: 20_000 })),
      },
      { cancellationSignal: controller.signal },
    );
    await turnStarted(e);
    const started = Date.now();
    controller.abort();
    expect(await slow).toEqual({ stopReason: "cancelled" });
    // Ended by the cancel, not by the agent's 20 s sleep (a bound, not a speed check).
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe("malformed input from the editor", () => {
  it("a garbage line gets a parse error and the connection lives on", async () => {
    const { e } = start();
    e.child.stdin.write("this is not json\n");
    await waitFor(() => e.stdout().includes("-32700"));
    expect(JSON.parse(e.stdout().split("\n")[0]!)).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700 },
    });
    expect(await e.agent.request("initialize", INIT)).toMatchObject({
      protocolVersion: 1,
    });
  });

  it("a date-string protocolVersion is normalized to 1 with a warning on stderr", async () => {
    const { e } = start();
    expect(
      await e.agent.request("initialize", {
        protocolVersion: "2025-06-18",
        clientCapabilities: {},
      }),
    ).toMatchObject({ protocolVersion: 1 });
    expect(e.stderr()).toMatch(/unsupported protocolVersion; using 1/);
  });

  it("requests before initialize are refused", async () => {
    const { e, home } = start();
    await expect(
      e.agent.request("session/new", { cwd: home, mcpServers: [] }),
    ).rejects.toThrow(/send initialize first/);
  });

  it("an oversized line closes the connection cleanly: exit 0, a log line, the agent gone", async () => {
    const { e } = start({ limits: { maxMessageBytes: 1024 * 1024 } });
    await e.agent.request("initialize", INIT);
    e.child.stdin.write(
      `{"jsonrpc":"2.0","id":9,"method":"x","params":{"p":"${"z".repeat(2 * 1024 * 1024)}"}}\n`,
    );
    expect(await e.exited).toBe(0);
    expect(e.stderr()).toMatch(
      /acphub: warning: editor connection closed with an error \(err=Incoming ACP data exceeds the configured 1048576 byte limit\)/,
    );
  });
});

describe("shutdown", () => {
  it.each(["SIGTERM", "SIGINT", "stdin EOF"])(
    "on %s: exit 0, the running turn cancelled, nothing left",
    async (how) => {
      const { e, home } = start();
      const sessionId = await openSession(e, home);
      void e.agent
        .request("session/prompt", {
          sessionId,
          prompt: text(steps({ text: "started" }, { sleep: 20_000 })),
        })
        .catch(() => undefined);
      await turnStarted(e);
      const [record] = readdirSync(join(home, "agents"));
      const agentPid = Number(record!.replace(".json", ""));
      expect(groupGone(agentPid)).toBe(false);
      if (how === "stdin EOF") e.child.stdin.end();
      else e.child.kill(how as NodeJS.Signals);
      expect(await e.exited).toBe(0);
      expect(await waitFor(() => groupGone(agentPid))).toBe(true);
      expect(readdirSync(join(home, "agents"))).toEqual([]);
    },
  );
});
