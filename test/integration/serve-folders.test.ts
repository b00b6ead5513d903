// Session folders on a hub with users (issue 34, item 2), in raw JSON-RPC frames: a member's
// cwd and additionalDirectories must lie inside their roots (users.roots), symlinks and `..`
// resolved; `/`, $HOME and folders holding acphub's files are refused to admins too; all before
// any agent starts and without a session being recorded.
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { INIT, until } from "../helpers/hub.js";
import { tempDir } from "../helpers/mock.js";
import { teamFixture, type TeamHub } from "../helpers/team.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());

type Frame = Record<string, unknown>;

// A raw WebSocket to the hub as `user`: `call` sends one request and waits for its answer.
async function raw(team: TeamHub, user: string) {
  const ws = new WebSocket(team.h.acpUrl.replace(/^http/, "ws"), {
    headers: { Authorization: `Bearer ${team.tokens[user]}` },
  });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  const frames: Frame[] = [];
  ws.on("message", (d: Buffer) =>
    frames.push(JSON.parse(d.toString()) as Frame),
  );
  let next = 1;
  const call = async (method: string, params: unknown): Promise<Frame> => {
    const id = next++;
    ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    await until(() => frames.some((f) => f["id"] === id));
    return frames.find((f) => f["id"] === id)!;
  };
  await call("initialize", INIT);
  return { call, close: () => ws.close() };
}

const messageOf = (f: Frame) =>
  String((f["error"] as { message?: string } | undefined)?.message);

describe("acphub serve: session folders per user", { timeout: 120_000 }, () => {
  it("a member opens sessions only inside their roots; every other folder is refused before any agent starts", async () => {
    const root = tempDir("acphub-root-alice-");
    const outside = tempDir("acphub-outside-");
    mkdirSync(join(root, "project"));
    symlinkSync("/etc", join(root, "etc-link"));
    symlinkSync(outside, join(root, "out-link"));
    const team = await fx.start(
      { alice: "member" },
      { users: { roots: { alice: [root] } } },
    );
    const alice = await raw(team, "alice");
    const refused = [
      { cwd: "/" },
      { cwd: "/etc/.." },
      { cwd: "/etc" },
      { cwd: `${root}/..` },
      { cwd: join(root, "etc-link") },
      { cwd: join(root, "out-link") },
      { cwd: team.home },
      { cwd: root, additionalDirectories: [outside] },
      { cwd: root, additionalDirectories: ["/"] },
      { cwd: root, additionalDirectories: [join(root, "out-link")] },
    ];
    for (const folders of refused) {
      const answer = await alice.call("session/new", {
        ...folders,
        mcpServers: [],
      });
      expect({ folders, error: !!answer["error"] }).toEqual({
        folders,
        error: true,
      });
      expect(messageOf(answer)).toMatch(/refused|outside your folders/);
    }
    const ok = await alice.call("session/new", {
      cwd: join(root, "project"),
      mcpServers: [],
    });
    expect(ok["result"]).toHaveProperty("sessionId");
    const id = (ok["result"] as { sessionId: string }).sessionId;
    const fork = await alice.call("session/fork", {
      sessionId: id,
      cwd: "/",
      mcpServers: [],
    });
    expect(messageOf(fork)).toMatch(/refused/);
    const admin = await raw(team, "admin");
    const list = await admin.call("session/list", {});
    const sessions = (list["result"] as { sessions: Frame[] }).sessions;
    expect(sessions.map((s) => s["sessionId"])).toEqual([id]);
    alice.close();
    admin.close();
  });

  it("an admin's session may not sit at /, nor in a folder holding acphub's state", async () => {
    const team = await fx.start({ alice: "member" });
    const admin = await raw(team, "admin");
    for (const cwd of ["/", "/etc/..", join(team.home, "..")]) {
      const answer = await admin.call("session/new", { cwd, mcpServers: [] });
      expect({ cwd, message: messageOf(answer) }).toEqual({
        cwd,
        message: expect.stringMatching(/refused/),
      });
    }
    const ok = await admin.call("session/new", {
      cwd: tempDir("acphub-admin-work-"),
      mcpServers: [],
    });
    expect(ok["result"]).toHaveProperty("sessionId");
    admin.close();
  });

  it("a member without roots configured gets a folder of their own under the state folder's side", async () => {
    const team = await fx.start({ bob: "member" }, { users: { roots: {} } });
    const bob = await raw(team, "bob");
    const own = `${team.home}-workspaces/bob`;
    const answer = await bob.call("session/new", {
      cwd: tempDir("acphub-elsewhere-"),
      mcpServers: [],
    });
    expect(messageOf(answer)).toContain(own);
    const ok = await bob.call("session/new", { cwd: own, mcpServers: [] });
    expect(ok["result"]).toHaveProperty("sessionId");
    bob.close();
  });
});
