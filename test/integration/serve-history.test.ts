// `_acphub/history` through a real `acphub serve`: a connection that never loaded the session
// pages its history newest-first and gets exactly what session/load replays, in order, without
// a gap or a duplicate; then session/resume from the newest page's last seq goes on live. Bad
// bounds are refused with the limit named.
import { afterEach, describe, expect, it } from "vitest";
import {
  hubFixture,
  INIT,
  openSession,
  seqOf,
  text,
  until,
} from "../helpers/hub.js";
import { steps } from "../helpers/mock.js";

const fx = hubFixture();
afterEach(() => fx.cleanup());

interface Page {
  updates: Record<string, unknown>[];
  firstSeq: number | null;
  lastSeq: number | null;
  more: boolean;
}

const calls = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    toolCall: { toolCallId: `c${from + i}`, title: "t", status: "completed" },
  }));

describe("acphub serve: _acphub/history", () => {
  it("pages a session newest-first to exactly session/load's replay, then resumes live from the page", async () => {
    const { h, home } = await fx.start();
    const driver = fx.connect(h, "ws");
    const sessionId = await openSession(driver, home);
    for (const from of [0, 40])
      await driver.agent.request("session/prompt", {
        sessionId,
        prompt: text(steps(...calls(from, 40))),
      });
    const editor = fx.connect(h, "ws");
    await editor.agent.request("initialize", INIT);
    await editor.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    const replay = editor.updates(sessionId);

    const reader = fx.connect(h, "ws");
    await reader.agent.request("initialize", INIT);
    const ask = (params: Record<string, unknown>) =>
      reader.agent.request<Page>("_acphub/history", { sessionId, ...params });
    const newest = await ask({ limit: 7 });
    // Seven events (a turn's end among them is no update), each update with its seq.
    expect(newest.updates).toEqual(
      replay.filter((u) => seqOf(u) >= newest.firstSeq!),
    );
    const pages = [newest];
    while (pages[0]!.more && pages.length < 50)
      pages.unshift(await ask({ limit: 7, beforeSeq: pages[0]!.firstSeq }));
    expect(pages.flatMap((p) => p.updates)).toEqual(replay);
    expect(pages[0]!.more).toBe(false);
    const forward = await ask({ afterSeq: pages[0]!.lastSeq, from: "oldest" });
    expect(forward.updates).toEqual(
      replay.filter((u) => seqOf(u) > pages[0]!.lastSeq!),
    );

    await reader.agent.request("session/resume", {
      sessionId,
      cwd: home,
      mcpServers: [],
      _meta: { acphub: { afterSeq: newest.lastSeq } },
    });
    await driver.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps(...calls(80, 3))),
    });
    await until(() => JSON.stringify(reader.updates()).includes('"c82"'));
    const live = reader.updates(sessionId).map(seqOf);
    expect(live.length).toBeGreaterThan(0);
    expect(live[0]).toBeGreaterThan(newest.lastSeq!);
    expect(new Set(live).size).toBe(live.length);
  });

  it("says whether more is beyond a page, read either way, at the session's ends and when cut at maxBytes", async () => {
    const { h, home } = await fx.start();
    const c = fx.connect(h, "ws");
    const sessionId = await openSession(c, home);
    await c.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps(...calls(0, 20))),
    });
    const ask = (params: Record<string, unknown>) =>
      c.agent.request<Page>("_acphub/history", { sessionId, ...params });
    const all = await ask({ limit: 5000 });
    expect(all.more).toBe(false);
    // Paged either way at every size from 1 to 7 events (some end exactly at the session's
    // end): the same updates, and no page asked for past the end (none empty).
    for (let limit = 1; limit <= 7; limit++) {
      const older = [await ask({ limit })];
      while (older[0]!.more && older.length < 200)
        older.unshift(await ask({ limit, beforeSeq: older[0]!.firstSeq }));
      const newer = [await ask({ limit, from: "oldest" })];
      while (newer.at(-1)!.more && newer.length < 200)
        newer.push(
          await ask({ limit, from: "oldest", afterSeq: newer.at(-1)!.lastSeq }),
        );
      for (const pages of [older, newer]) {
        expect(pages.flatMap((p) => p.updates)).toEqual(all.updates);
        expect(pages.every((p) => p.firstSeq !== null)).toBe(true);
      }
      // `more`: beyond the page in the direction read (the oldest page, the newest page).
      expect(older.map((p) => p.more)).toEqual(older.map((_, i) => i > 0));
      expect(newer.map((p) => p.more)).toEqual(
        newer.map((_, i) => i < newer.length - 1),
      );
    }
    // Cut at maxBytes: one event (the first is returned anyway), and more beyond it.
    const cut = await ask({ limit: 10, maxBytes: 1 });
    expect(cut.firstSeq).toBe(cut.lastSeq);
    expect(cut.more).toBe(true);
    expect(cut.lastSeq).toBe(all.lastSeq);
  });

  it("refuses bounds out of range, naming the limit, and a session that does not exist", async () => {
    const { h, home } = await fx.start();
    const c = fx.connect(h, "ws");
    const sessionId = await openSession(c, home);
    const ask = (params: Record<string, unknown>) =>
      c.agent.request("_acphub/history", { sessionId, ...params });
    await expect(ask({ limit: 0 })).rejects.toThrow(/limit must be/);
    await expect(ask({ limit: 6000 })).rejects.toThrow(
      /at most 5000 events \(asked 6000\)/,
    );
    await expect(ask({ maxBytes: 2 ** 30 })).rejects.toThrow(/bytes/);
    await expect(ask({ beforeSeq: -1 })).rejects.toThrow(/sequence number/);
    await expect(ask({ from: "middle" })).rejects.toThrow(/newest/);
    await expect(
      c.agent.request("_acphub/history", { sessionId: "nope" }),
    ).rejects.toThrow(/no session/);
  });
});
