// Two clients of one `acphub serve` session prompting at the same moment, 100 times: one prompt
// runs, the other is refused with PROMPT_IN_FLIGHT and changes nothing — not the owner (the
// running turn's permission question goes to its own client), not the ledger (one prompt per
// turn, each with its turn_end), not the title, not the idempotency record.
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import {
  allowOnce,
  hubFixture,
  INIT,
  openSession,
  text,
} from "../helpers/hub.js";
import { steps } from "../helpers/mock.js";

const fx = hubFixture();
afterEach(() => fx.cleanup());
const ROUNDS = 100;

interface Shown {
  session: { title: string | null };
  events: { kind: string; payload: Record<string, unknown> }[];
}

type Outcome =
  | { stopReason: string; _meta?: unknown }
  | { code: number; data?: { code?: string } };

describe("acphub serve: two clients racing a prompt", () => {
  it(`${ROUNDS} rounds: one runs, the other changes nothing`, async () => {
    const { h, home } = await fx.start();
    const asked: string[] = [];
    const answering =
      (name: string) => (m: string, p: Record<string, unknown>) => {
        asked.push(name);
        return allowOnce(m, p);
      };
    const a = fx.connect(h, "ws", answering("a"));
    const b = fx.connect(h, "ws", answering("b"));
    const sessionId = await openSession(a, home);
    await b.agent.request("initialize", INIT);
    await b.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    const winners: string[] = [];
    const losers: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      asked.length = 0;
      const send = (c: typeof a, name: string) =>
        c.agent
          .request<Outcome>("session/prompt", {
            sessionId,
            prompt: text(
              steps(
                { text: `${name}${i} ` },
                { permission: { title: `edit ${i}`, kind: "edit" } },
              ),
            ),
            _meta: { acphub: { idempotencyKey: `${name}-${i}` } },
          })
          .catch((e: Outcome) => e);
      const [ra, rb] = await Promise.all([send(a, "a"), send(b, "b")]);
      const ok = [ra, rb].map((r) => "stopReason" in r);
      expect(ok.filter(Boolean)).toHaveLength(1);
      const winner = ok[0] ? "a" : "b";
      expect(ok[0] ? rb : ra).toMatchObject({
        data: { code: "PROMPT_IN_FLIGHT" },
      });
      expect(asked).toEqual([winner]);
      winners.push(`${winner}-${i}`);
      losers.push(`${winner === "a" ? "b" : "a"}-${i}`);
    }
    const shown = JSON.parse(
      (await runCli(["sessions", "show", sessionId, "--json"], { home }))
        .stdout,
    ) as Shown;
    const turns = shown.events.filter(
      (e) => e.kind === "prompt" || e.kind === "turn_end",
    );
    expect(turns.map((e) => e.kind)).toEqual(
      Array.from({ length: ROUNDS }, () => ["prompt", "turn_end"]).flat(),
    );
    const keys = turns
      .filter((e) => e.kind === "prompt")
      .map(
        (e) =>
          (e.payload["meta"] as { acphub: { idempotencyKey: string } }).acphub
            .idempotencyKey,
      );
    expect(keys).toEqual(winners);
    expect(shown.session.title).toContain(`${winners[0]!.replace("-", "")} `);
    // The idempotency record: a winner's key is answered from the ledger, a loser's runs anew.
    const again = await a.agent.request<{
      _meta?: { acphub?: { replayed?: boolean } };
    }>("session/prompt", {
      sessionId,
      prompt: text("ignored"),
      _meta: { acphub: { idempotencyKey: winners[5] } },
    });
    expect(again._meta?.acphub?.replayed).toBe(true);
    const fresh = await a.agent.request<{
      stopReason: string;
      _meta?: { acphub?: { replayed?: boolean } };
    }>("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "fresh" })),
      _meta: { acphub: { idempotencyKey: losers[5] } },
    });
    expect(fresh.stopReason).toBe("end_turn");
    expect(fresh._meta?.acphub?.replayed).toBeUndefined();
  });
});
