// Issue 38: `acphub ledger backup FILE` copies a SQLite ledger while `acphub serve` runs, and
// `acphub ledger restore FILE` puts it into a new state folder: a hub started there lists the
// sessions (load replays them), users log in with their tokens and shares hold. Every refusal
// (an existing file, a running hub, an existing ledger, not a ledger, a newer schema, PostgreSQL)
// is one line with exit 2 and changes nothing.
import Database from "better-sqlite3";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { mockConfig } from "../helpers/editor.js";
import { startHub, type RunningHub } from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { rawClient, type RawClient } from "../helpers/raw-ws.js";
import { TEAM_WORK, teamFixture } from "../helpers/team.js";

const fx = teamFixture();
const hubs: RunningHub[] = [];
const open: RawClient[] = [];
afterEach(async () => {
  open.splice(0).forEach((c) => c.close());
  for (const h of hubs.splice(0)) {
    h.child.kill("SIGKILL");
    await h.exited;
  }
  await fx.cleanup();
});

const INIT = { protocolVersion: 1, clientCapabilities: {} };

async function as(acpUrl: string, token: string): Promise<RawClient> {
  const c = await rawClient(acpUrl, token);
  open.push(c);
  await c.call("initialize", INIT);
  return c;
}

// A session of `c` with one finished turn saying `text`.
async function sessionSaying(c: RawClient, text: string): Promise<string> {
  const made = await c.call("session/new", { cwd: TEAM_WORK, mcpServers: [] });
  const { sessionId } = made["result"] as { sessionId: string };
  const turn = await c.call("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: steps({ text }) }],
  });
  expect(turn["result"]).toMatchObject({ stopReason: "end_turn" });
  return sessionId;
}

const idsOf = async (c: RawClient) =>
  (
    (await c.call("session/list", {}))["result"] as {
      sessions: { sessionId: string }[];
    }
  ).sessions
    .map((s) => s.sessionId)
    .sort();

describe("acphub ledger backup|restore", { timeout: 120_000 }, () => {
  it("backs up while serving; a hub on the restored state folder has the sessions, users and shares", async () => {
    const team = await fx.start({ alice: "member", bob: "member" });
    writeFileSync(join(team.home, "secrets.key"), "k".repeat(44));
    const alice = await as(team.h.acpUrl, team.tokens["alice"]!);
    const bob = await as(team.h.acpUrl, team.tokens["bob"]!);
    const shared = await sessionSaying(alice, "alice's words");
    const own = await sessionSaying(alice, "not for bob");
    const bobs = await sessionSaying(bob, "bob's words");
    await alice.call("_acphub/session/share", {
      sessionId: shared,
      user: "bob",
      role: "viewer",
    });

    const file = join(tempDir(), "hub.backup");
    const backup = await runCli(["ledger", "backup", file, "--json"], {
      home: team.home,
    });
    expect(backup.code).toBe(0);
    expect(JSON.parse(backup.stdout)).toMatchObject({
      to: file,
      schema: expect.any(Number),
      sessions: 3,
      users: 2,
      notes: [
        expect.stringContaining(
          `keep ${join(team.home, "secrets.key")} with this backup`,
        ),
      ],
    });
    // The hub was serving all along: it still answers.
    expect(await idsOf(alice)).toEqual([shared, own].sort());
    // Refusals, each changing nothing.
    const again = await runCli(["ledger", "backup", file], { home: team.home });
    expect([again.code, again.stderr]).toEqual([
      2,
      `acphub: ${file} already exists: give --force to replace it, or another file\n`,
    ]);
    const busy = await runCli(["ledger", "restore", file, "--force"], {
      home: team.home,
    });
    expect(busy.code).toBe(2);
    expect(busy.stderr).toContain(
      `acphub serve (pid ${team.h.pid}, ${team.h.url}) runs on ${team.home}: stop it before restoring its ledger`,
    );

    const itself = await runCli(
      ["ledger", "backup", join(team.home, "ledger.db"), "--force"],
      { home: team.home },
    );
    expect(itself.stderr).toBe(
      `acphub: ${join(team.home, "ledger.db")} is the ledger itself: back it up into another file\n`,
    );

    // Restored into a new state folder, served there.
    const home = tempDir();
    mockConfig(home, [], { users: { roots: { "*": [TEAM_WORK] } } });
    const restore = await runCli(["ledger", "restore", file], { home });
    expect([restore.code, restore.stdout]).toEqual([
      0,
      `restored ${file} to ${join(home, "ledger.db")}: schema ${JSON.parse(backup.stdout).schema}, 3 sessions, 2 users\n`,
    ]);
    expect(restore.stderr).toContain(
      `copy the secrets.key kept with the backup into ${home}`,
    );
    const twice = await runCli(["ledger", "restore", file], { home });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("already exists: give --force");
    const h = await startHub(home);
    hubs.push(h);
    const alice2 = await as(h.acpUrl, team.tokens["alice"]!);
    const bob2 = await as(h.acpUrl, team.tokens["bob"]!);
    expect(await idsOf(alice2)).toEqual([shared, own].sort());
    // bob sees his own and the one shared with him, not alice's other one.
    expect(await idsOf(bob2)).toEqual([shared, bobs].sort());
    const load = await bob2.call("session/load", {
      sessionId: shared,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    expect(load["error"]).toBeUndefined();
    expect(JSON.stringify(bob2.frames)).toContain("alice's words");
    // The share is still a viewer's: bob may watch, not prompt.
    const refused = await bob2.call("session/prompt", {
      sessionId: shared,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(refused["error"]).toMatchObject({ code: -32001 });

    // A hub killed without stopping leaves its serve.pid behind: it no longer counts.
    team.h.child.kill("SIGKILL");
    await team.h.exited;
    expect(existsSync(join(team.home, "serve.pid"))).toBe(true);
    const over = await runCli(["ledger", "restore", file, "--force"], {
      home: team.home,
    });
    expect([over.code, over.stdout]).toEqual([
      0,
      `restored ${file} to ${join(team.home, "ledger.db")}: schema ${JSON.parse(backup.stdout).schema}, 3 sessions, 2 users\n`,
    ]);
  });

  it("refuses what is not an acphub ledger, a newer schema, and PostgreSQL with the lines to run", async () => {
    const home = tempDir();
    const dir = tempDir();
    const text = join(dir, "notes.txt");
    writeFileSync(text, "not a database\n");
    const other = join(dir, "other.db");
    const db = new Database(other);
    db.exec("CREATE TABLE t (x)");
    db.close();
    for (const file of [text, other]) {
      const r = await runCli(["ledger", "restore", file], { home });
      expect([r.code, r.stderr]).toEqual([
        2,
        `acphub: ${file} is not an acphub ledger (a SQLite file with acphub's sessions and events tables)\n`,
      ]);
    }
    // A ledger of a newer acphub: a real one with its schema version raised.
    const made = join(dir, "made");
    await runCli(["users", "add", "ann"], { home: made });
    const newer = join(dir, "newer.db");
    const backup = await runCli(["ledger", "backup", newer], { home: made });
    expect(backup.code).toBe(0);
    const raise = new Database(newer);
    raise.pragma("user_version = 999");
    raise.close();
    const r = await runCli(["ledger", "restore", newer], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /newer\.db was written by a newer acphub \(ledger schema 999; this one knows up to \d+\)/,
    );
    expect(existsSync(join(home, "ledger.db"))).toBe(false);
    const missing = await runCli(["ledger", "restore", join(dir, "nope")], {
      home,
    });
    expect(missing.stderr).toBe(`acphub: no such file: ${join(dir, "nope")}\n`);

    const pg = {
      ACPHUB_LEDGER_URL: "postgres://acphub:s3cret@db.internal/hub",
    };
    const dump = await runCli(["ledger", "backup", "hub.dump"], {
      home,
      env: pg,
    });
    expect([dump.code, dump.stderr]).toEqual([
      2,
      'acphub: the ledger is PostgreSQL: acphub ledger backup is for SQLite. Run instead:\n  pg_dump --format=custom --file=hub.dump "postgres://acphub@db.internal/hub"\n(see docs/ledger.md, "Backup and restore")\n',
    ]);
    const back = await runCli(["ledger", "restore", "hub.dump"], {
      home,
      env: pg,
    });
    expect(back.stderr).toContain(
      'pg_restore --clean --if-exists --no-owner --dbname="postgres://acphub@db.internal/hub" hub.dump',
    );
    expect(readFileSync(text, "utf8")).toBe("not a database\n");
  });
});
