// Users through the stdio shim (issue 22): `acphub acp --hub URL --token-file F` with a user's
// token is that user — their session is theirs, another member's shim neither lists nor loads it.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEditor, type TestEditor } from "../helpers/editor.js";
import { INIT } from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { teamFixture, type TeamHub, TEAM_WORK } from "../helpers/team.js";

const fx = teamFixture();
const editors: TestEditor[] = [];
afterEach(async () => {
  for (const e of editors.splice(0)) {
    e.child.kill("SIGKILL");
    await e.exited;
  }
  await fx.cleanup();
});

// An editor reaching the hub through the shim as `user`.
async function shimAs(team: TeamHub, user: string): Promise<TestEditor> {
  const file = join(tempDir(), "token");
  writeFileSync(file, `${team.tokens[user]}\n`, { mode: 0o600 });
  const editor = startEditor(team.home, {
    args: ["--hub", team.h.url, "--token-file", file],
  });
  editors.push(editor);
  await editor.agent.request("initialize", INIT);
  return editor;
}

describe("acphub acp --hub with users", { timeout: 120_000 }, () => {
  it("an editor is its user: whoami, its own session, and another member's session does not exist", async () => {
    const team = await fx.start({ alice: "member", bob: "member" });
    const alice = await shimAs(team, "alice");
    expect(await alice.agent.request("_acphub/whoami", {})).toEqual({
      name: "alice",
      role: "member",
    });
    const { sessionId } = await alice.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    await alice.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: steps({ text: "for alice" }) }],
    });
    const bob = await shimAs(team, "bob");
    const list = await bob.agent.request<{ sessions: unknown[] }>(
      "session/list",
      {},
    );
    expect(list.sessions).toEqual([]);
    await expect(
      bob.agent.request("session/load", {
        sessionId,
        cwd: TEAM_WORK,
        mcpServers: [],
      }),
    ).rejects.toMatchObject({ code: -32002 });
    expect(JSON.stringify(bob.updates())).not.toContain("for alice");
  });
});
