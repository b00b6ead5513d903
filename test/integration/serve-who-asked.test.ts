// Who a hub's permission question waits for, and who answered it (issue 38): the watchers are
// told the person the question went to (the hub user of the connection asked, not the program
// they use); and an answer `acphub run --hub` gave by its own policy (approve-reads refusing an
// edit, nobody asked) is in the audit log as the policy's, not as the user's own choice.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { text, until, type HubTestClient } from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { teamFixture, TEAM_WORK } from "../helpers/team.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());

const WATCH = {
  protocolVersion: 1,
  clientCapabilities: { _meta: { acphub: { watch: true } } },
  clientInfo: { name: "my-editor", version: "1" },
};

// What session/list says of a session (its `_meta.acphub`).
const listed = async (c: HubTestClient, sessionId: string) => {
  const page = await c.agent.request<{ sessions: Record<string, unknown>[] }>(
    "session/list",
    {},
  );
  const row = page.sessions.find((s) => s["sessionId"] === sessionId);
  return (row?.["_meta"] as { acphub: Record<string, unknown> }).acphub;
};

describe("acphub serve: who is asked, who answered", () => {
  it("names the user a question waits for, not their client program", async () => {
    const team = await fx.start({ alice: "member" });
    let answer: (v: unknown) => void = () => undefined;
    const editor = fx.connect(
      team,
      "alice",
      "ws",
      () => new Promise((r) => (answer = r)),
    );
    const admin = fx.connect(team, "admin", "ws");
    await editor.agent.request("initialize", WATCH);
    await admin.agent.request("initialize", WATCH);
    const { sessionId } = await editor.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    const turn = editor.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ permission: { toolCallId: "q1", title: "Run" } })),
    });
    await until(
      async () => (await listed(admin, sessionId))["state"] === "waiting",
    );
    expect(await listed(admin, sessionId)).toMatchObject({ askedOf: "alice" });
    expect(
      admin.notifications.some(
        (n) =>
          n.method === "_acphub/sessions/changed" &&
          n.params["askedOf"] === "alice",
      ),
    ).toBe(true);
    answer({ outcome: { outcome: "cancelled" } });
    await turn;
  });

  it("records run --hub's refusal by its policy as the policy's answer", async () => {
    const team = await fx.start({ alice: "member" });
    const tokenFile = join(tempDir(), "alice-token");
    writeFileSync(tokenFile, `${team.tokens["alice"]}\n`, { mode: 0o600 });
    const run = await runCli(
      [
        "run",
        "--hub",
        team.h.url,
        "--token-file",
        tokenFile,
        "--cwd",
        TEAM_WORK,
        steps({
          permission: { toolCallId: "e1", title: "Edit it", kind: "edit" },
        }),
      ],
      { home: tempDir() },
    );
    expect(run.stdout).toContain("permission denied");
    const audit = await runCli(["audit", "--json"], { home: team.home });
    expect(audit.code, audit.stderr).toBe(0);
    const answers = (
      JSON.parse(audit.stdout) as {
        user: string;
        action: string;
        detail: Record<string, unknown>;
      }[]
    ).filter((e) => e.action === "permission.answer");
    expect(answers).toEqual([
      expect.objectContaining({
        user: "alice",
        detail: expect.objectContaining({
          toolCallId: "e1",
          kind: "reject_once",
          by: "policy",
          reason: expect.stringContaining("approve-reads mode refused"),
        }),
      }),
    ]);
  });
});
