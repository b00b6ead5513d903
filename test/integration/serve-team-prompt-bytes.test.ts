// Issue 34, item 15: a prompt's size is the whole request as sent and stored — its blocks,
// `_meta` and any other field — for the user's quota (`users.limits.promptBytes`) and for the
// engine's cap (`limits.maxPromptBytes`, 2 MiB by default). A small prompt with a 3 MiB `_meta`
// was stored; now each refusal names the limit and the size, and nothing is recorded.
import { afterEach, describe, expect, it } from "vitest";
import { rawClient, type RawClient } from "../helpers/raw-ws.js";
import { TEAM_WORK, teamFixture, type TeamHub } from "../helpers/team.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());
const open: RawClient[] = [];
afterEach(() => open.splice(0).forEach((c) => c.close()));

const INIT = { protocolVersion: 1, clientCapabilities: {} };
const hi = [{ type: "text", text: "hi" }];

// A raw client of `user` with a new session of its own.
async function withSession(team: TeamHub, user: string) {
  const c = await rawClient(team.h.acpUrl, team.tokens[user]!);
  open.push(c);
  await c.call("initialize", INIT);
  const made = await c.call("session/new", { cwd: TEAM_WORK, mcpServers: [] });
  return { c, sessionId: (made["result"] as { sessionId: string }).sessionId };
}

const lastSeq = async (c: RawClient, sessionId: string) =>
  (
    (await c.call("_acphub/session/replay", { sessionId }))["result"] as {
      lastSeq: number;
    }
  ).lastSeq;

// The request of a prompt padded in `_meta` or in a field of its own, and its size.
function padded(sessionId: string, where: "_meta" | "extra", pad: number) {
  const params =
    where === "_meta"
      ? { sessionId, prompt: hi, _meta: { pad: "x".repeat(pad) } }
      : { sessionId, prompt: hi, extra: "x".repeat(pad) };
  return { params, bytes: Buffer.byteLength(JSON.stringify(params)) };
}

describe(
  "a prompt's size counts all of its request",
  { timeout: 60_000 },
  () => {
    it.each(["_meta", "extra"] as const)(
      "users.limits.promptBytes refuses a small prompt with a large %s, naming the limit and the size",
      async (where) => {
        const team = await fx.start(
          { alice: "member" },
          { users: { limits: { promptBytes: 4096 } } },
        );
        const { c, sessionId } = await withSession(team, "alice");
        const before = await lastSeq(c, sessionId);
        const { params, bytes } = padded(sessionId, where, 64 * 1024);
        const answer = await c.call("session/prompt", params);
        expect(answer["error"]).toMatchObject({
          code: -32602,
          message: `quota users.limits.promptBytes (4096 bytes; this prompt request is ${bytes} bytes, _meta included) reached: send a smaller prompt`,
        });
        expect(await lastSeq(c, sessionId)).toBe(before);
        // Under the quota, the same prompt runs.
        const ok = await c.call("session/prompt", { sessionId, prompt: hi });
        expect(ok["result"]).toMatchObject({ stopReason: "end_turn" });
      },
    );

    it("the engine's 2 MiB cap refuses a 3 MiB _meta, also from the admin, and records nothing", async () => {
      const team = await fx.start({ alice: "member" });
      for (const user of ["admin", "alice"]) {
        const { c, sessionId } = await withSession(team, user);
        const before = await lastSeq(c, sessionId);
        const { params, bytes } = padded(sessionId, "_meta", 3 * 1024 * 1024);
        const answer = await c.call("session/prompt", params);
        expect(answer["error"]).toMatchObject({
          code: -32602,
          message: `prompt request is ${bytes} bytes (its blocks, _meta and every other field); the limit is ${2 * 1024 * 1024} (limits.maxPromptBytes)`,
        });
        expect(await lastSeq(c, sessionId)).toBe(before);
      }
    });
  },
);
