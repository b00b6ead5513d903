// A client of `acphub serve` that saw the start of a streamed reply, went away, and came back
// after the turn's chunks were merged (compaction) gets only the rest: the reply appears once.
import { afterEach, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import {
  hubFixture,
  INIT,
  openSession,
  seqOf,
  text,
  until,
  type HubTestClient,
} from "../helpers/hub.js";
import { steps } from "../helpers/mock.js";

const fx = hubFixture();
afterEach(() => fx.cleanup());

const REPLY = ["alpha ", "beta ", "gamma ", "delta"];

// The agent_message_chunk updates a client got for the session: [seq, text] each.
function replyChunks(c: HubTestClient, sessionId: string): [number, string][] {
  return c.updates(sessionId).flatMap((p) => {
    const u = p["update"] as {
      sessionUpdate: string;
      content?: { text?: string };
    };
    return u.sessionUpdate === "agent_message_chunk"
      ? [[seqOf(p), u.content?.text ?? ""] as [number, string]]
      : [];
  });
}

// Whether the ledger (read by the real CLI) holds the reply as one merged event.
async function merged(home: string, sessionId: string): Promise<boolean> {
  const shown = await runCli(["sessions", "show", sessionId, "--json"], {
    home,
  });
  return shown.stdout.includes(JSON.stringify(REPLY.join("")));
}

it("a client reconnecting with a cursor inside a compacted reply gets only the rest", async () => {
  const { h, home } = await fx.start();
  const first = fx.connect(h, "ws");
  const sessionId = await openSession(first, home);
  await first.agent.request("session/prompt", {
    sessionId,
    prompt: text(steps(...REPLY.map((t) => ({ text: t })))),
  });
  const sent = replyChunks(first, sessionId);
  expect(sent.map(([, t]) => t)).toEqual(REPLY);
  first.close();
  await until(() => merged(home, sessionId));
  // The first client had shown the first two chunks when its connection dropped.
  const [cursor] = sent[1]!;
  const second = fx.connect(h, "ws");
  await second.agent.request("initialize", INIT);
  await second.agent.request("session/resume", {
    sessionId,
    cwd: home,
    mcpServers: [],
    _meta: { acphub: { afterSeq: cursor } },
  });
  await until(() => replyChunks(second, sessionId).length > 0);
  const caughtUp = replyChunks(second, sessionId);
  const shown =
    REPLY.slice(0, 2).join("") + caughtUp.map(([, t]) => t).join("");
  expect(shown).toBe(REPLY.join(""));
  expect(caughtUp.map(([seq]) => seq)).toEqual([sent.at(-1)![0]]);
});
