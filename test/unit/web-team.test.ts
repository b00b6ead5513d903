// The web page's users part (issue 22): a prompt's author from the hub's
// `_meta.acphub.author` (shown when a session has several), and what the page lets a user do
// in a session from `_acphub/whoami` and the session's grants, as the hub's rules read them.
import { describe, expect, it } from "vitest";
import { toMarkdown } from "../../src/web/state/session-actions.js";
import { applyUpdate, newModel } from "../../src/web/state/session-model.js";
import { Team, type Me } from "../../src/web/state/team.js";

const prompt = (seq: number, text: string, author?: string) => ({
  sessionId: "s",
  update: {
    sessionUpdate: "user_message_chunk",
    content: { type: "text", text },
  },
  _meta: { acphub: { seq, ...(author ? { author } : {}) } },
});

const reply = (seq: number, text: string) => ({
  sessionId: "s",
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
  },
  _meta: { acphub: { seq } },
});

describe("a prompt's author in the page's model", () => {
  it("marks each user message with its author and counts the session's authors", () => {
    const m = newModel("s");
    applyUpdate(m, prompt(1, "from alice", "alice"));
    applyUpdate(m, reply(2, "ok"));
    expect(m.authors.size).toBe(1);
    applyUpdate(m, prompt(3, "from bob", "bob"));
    applyUpdate(m, prompt(4, "from an editor without users"));
    expect(m.items.map((i) => [i.kind, i.author, i.text])).toEqual([
      ["user", "alice", "from alice"],
      ["agent", undefined, "ok"],
      ["user", "bob", "from bob"],
      ["user", undefined, "from an editor without users"],
    ]);
    expect([...m.authors]).toEqual(["alice", "bob"]);
    expect(toMarkdown(m, "t")).toBe(
      "# t\n\n## alice\n\nfrom alice\n\n## Agent\n\nok\n\n## bob\n\nfrom bob\n\n## You\n\nfrom an editor without users\n",
    );
  });

  it("ignores an author that is not a non-empty string", () => {
    const m = newModel("s");
    applyUpdate(m, {
      ...prompt(1, "x"),
      _meta: { acphub: { seq: 1, author: 7 } },
    });
    applyUpdate(m, prompt(2, "y", ""));
    expect(m.items.map((i) => i.author)).toEqual([undefined, undefined]);
    expect(m.authors.size).toBe(0);
  });
});

// A team over a fake hub: whoami answers `me`, grants answers `grants` (or -32601).
function teamOf(me: Me, grants: { user: string; role: string }[] | "none") {
  const calls: [string, Record<string, unknown>][] = [];
  const team = new Team({
    request: <T>(method: string, params: Record<string, unknown>) => {
      calls.push([method, params]);
      if (method === "_acphub/whoami") return Promise.resolve(me as T);
      if (method !== "_acphub/session/grants") return Promise.resolve({} as T);
      if (grants === "none")
        return Promise.reject(
          Object.assign(new Error("this hub keeps no users"), { code: -32601 }),
        );
      return Promise.resolve({
        grants: grants.map((g) => ({ sessionId: "s", ...g })),
      } as T);
    },
    changed: () => undefined,
  });
  return { team, calls };
}

describe("what the page lets a user do in a session", () => {
  it.each([
    ["an admin", { name: "root", role: "admin" }, [], "admin", false, true],
    [
      "the owner",
      { name: "alice", role: "member" },
      [{ user: "alice", role: "owner" }],
      "owner",
      false,
      true,
    ],
    [
      "a driver",
      { name: "bob", role: "member" },
      [
        { user: "alice", role: "owner" },
        { user: "bob", role: "driver" },
      ],
      "driver",
      false,
      false,
    ],
    [
      "a viewer share",
      { name: "bob", role: "member" },
      [{ user: "bob", role: "viewer" }],
      "viewer",
      true,
      false,
    ],
    [
      "a viewer-role user shared as driver",
      { name: "vic", role: "viewer" },
      [{ user: "vic", role: "driver" }],
      "viewer",
      true,
      false,
    ],
  ] as const)("%s", async (_, me, grants, standing, readOnly, mayShare) => {
    const { team } = teamOf(me as Me, [...grants]);
    await team.whoami();
    // Before the grants: a member's standing is not known yet (an admin's and a viewer's are).
    if (me.role === "member") expect(team.standing("s")).toBeUndefined();
    await team.load("s");
    expect(team.standing("s")).toBe(standing);
    expect(team.readOnly("s")).toBe(readOnly);
    expect(team.mayShare("s")).toBe(mayShare);
  });

  it("a viewer-role user is read-only before the grants are read; nothing is known before whoami", async () => {
    const { team } = teamOf({ name: "vic", role: "viewer" }, []);
    expect(team.readOnly("s")).toBe(false);
    await team.whoami();
    expect(team.me).toEqual({ name: "vic", role: "viewer" });
    expect(team.readOnly("s")).toBe(true);
  });

  it("on a hub without users the serve token's holder drives and shares nothing", async () => {
    const { team } = teamOf({ name: "admin", role: "admin" }, "none");
    await team.whoami();
    await team.load("s");
    expect(team.standing("s")).toBe("admin");
    expect(team.grantsOf("s")).toBeUndefined();
    expect(team.mayShare("s")).toBe(false);
  });

  it("share and unshare call the hub's methods and read the grants again", async () => {
    const { team, calls } = teamOf({ name: "alice", role: "member" }, [
      { user: "alice", role: "owner" },
    ]);
    await team.share("s", "bob", "driver");
    await team.unshare("s", "bob");
    expect(calls.map((c) => c[0])).toEqual([
      "_acphub/session/share",
      "_acphub/session/grants",
      "_acphub/session/unshare",
      "_acphub/session/grants",
    ]);
    expect(calls[0]![1]).toEqual({
      sessionId: "s",
      user: "bob",
      role: "driver",
    });
  });
});
