// Issue 38, browser logins in a cluster: two `acphub serve` nodes on one PostgreSQL behind one
// public address (serve.publicUrl, as behind a load balancer) share the web page's logins — a
// cookie made on one node is a login on the other, a login code made on A logs one browser in
// on B and then is spent on both, a logout on one node ends the login on both, and removing a
// user (on A's ledger) ends their login on B. Only hashes are stored. A single hub's logins
// (web-sessions.json) are brought into the cluster's table when it becomes a node.
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CLUSTER_TOKEN, clusterFixture } from "../helpers/cluster.js";
import { mockConfig } from "../helpers/editor.js";
import { startHub } from "../helpers/hub.js";
import { tempDir } from "../helpers/mock.js";
import { loginWith, openLoginPage, rawRequest } from "../helpers/web-login.js";
import { sql } from "../helpers/postgres.js";

const cluster = clusterFixture();
/** The address browsers reach the cluster by (a load balancer's): one cookie for all nodes. */
const PUBLIC_URL = "http://127.0.0.1:9443";
const SERVE = { serve: { publicUrl: PUBLIC_URL } };

// Two nodes behind one public address, on a fresh database.
async function twoNodes() {
  const url = await cluster.database();
  const a = await cluster.node(url, "node-a", 2000, undefined, [], SERVE);
  const b = await cluster.node(url, "node-b", 2000, undefined, [], SERVE);
  return { url, a: a.h, b: b.h, homeA: a.home };
}

// A login URL with a fresh code, made by a node for the serve token's holder.
async function mintOn(nodeUrl: string): Promise<string> {
  const answer = await rawRequest(`${nodeUrl}/login/code`, "POST", {
    Authorization: `Bearer ${CLUSTER_TOKEN}`,
  });
  expect(answer.status).toBe(200);
  // Made under the public address: sent to the node itself here.
  return (JSON.parse(answer.body) as { url: string }).url.replace(
    PUBLIC_URL,
    nodeUrl,
  );
}

// Whether a node takes a browser's cookie as a login (GET /auth: 204 or 401).
async function auth(nodeUrl: string, cookie: string): Promise<number> {
  return (await rawRequest(`${nodeUrl}/auth`, "GET", { Cookie: cookie }))
    .status;
}

// Waits (bounded) until a node answers /auth with `status` for the cookie.
async function authBecomes(nodeUrl: string, cookie: string, status: number) {
  for (let i = 0; i < 200 && (await auth(nodeUrl, cookie)) !== status; i++)
    await new Promise((r) => setTimeout(r, 100));
  return auth(nodeUrl, cookie);
}

describe("acphub serve cluster: browser logins on every node (issue 38)", () => {
  it("a login made on one node is a login on the other; a code made on A logs in once on B, then is spent everywhere; logout on one node ends it on both", async () => {
    const { url, a, b } = await twoNodes();
    const onA = await mintOn(a.url);
    const onB = onA.replace(a.url, b.url);
    const cookie = await loginWith(onB);
    expect(await auth(b.url, cookie)).toBe(204);
    expect(await auth(a.url, cookie)).toBe(204);
    // One name for both nodes: the public address's port.
    expect(cookie).toMatch(/^acphub_session_9443=/);
    // Spent: on neither node does it log another browser in.
    for (const again of [onA, onB])
      expect((await openLoginPage(again)).page.status).toBe(401);
    // Nothing secret in the table: the cookie's value is nowhere in it, only its hash.
    const rows = await sql<Record<string, string>>(
      url,
      "SELECT key_hash, kind, user_name FROM acphub_web_logins",
    );
    const value = cookie.split("=")[1]!;
    // The codes each node printed at its start, and the one browser session.
    expect(rows.filter((r) => r["kind"] === "code")).toHaveLength(2);
    expect(rows.filter((r) => r["kind"] === "session")).toEqual([
      {
        key_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        kind: "session",
        user_name: "admin",
      },
    ]);
    expect(JSON.stringify(rows)).not.toContain(value);
    const out = await rawRequest(`${a.url}/logout`, "POST", {
      Cookie: cookie,
      Origin: a.url,
    });
    expect(out.status).toBe(204);
    expect(await auth(a.url, cookie)).toBe(401);
    expect(await auth(b.url, cookie)).toBe(401);
  });

  it("removing a user on A ends their browser login on B", async () => {
    const url = await cluster.database();
    const env = { ACPHUB_LEDGER_URL: url, ACPHUB_TOKEN: CLUSTER_TOKEN };
    const home = tempDir();
    mockConfig(home, [], SERVE);
    const added = await runCli(["users", "add", "alice"], { home, env });
    expect(added.code, added.stderr).toBe(0);
    const a = await cluster.node(url, "node-a", 2000, undefined, [], SERVE);
    const b = await cluster.node(url, "node-b", 2000, undefined, [], SERVE);
    const link = await runCli(
      ["users", "login-link", "alice", "--url", a.h.url, "--json"],
      { home, env },
    );
    expect(link.code, link.stderr).toBe(0);
    const cookie = await loginWith(
      (JSON.parse(link.stdout) as { url: string }).url,
    );
    expect(await auth(a.h.url, cookie)).toBe(204);
    expect(await auth(b.h.url, cookie)).toBe(204);
    const removed = await runCli(["users", "remove", "alice"], {
      home: a.home,
      env,
    });
    expect(removed.code, removed.stderr).toBe(0);
    expect(await authBecomes(b.h.url, cookie, 401)).toBe(401);
    expect(await auth(a.h.url, cookie)).toBe(401);
  });

  it("a single hub's browser logins (web-sessions.json) keep working once it is a node, on every node", async () => {
    const url = await cluster.database();
    const home = tempDir();
    mockConfig(home, [], { ...SERVE, cluster: { leaseMs: 2000 } });
    const token = { ACPHUB_TOKEN: CLUSTER_TOKEN };
    const single = await startHub(home, [], token);
    const first = JSON.parse(single.stdout().split("\n")[0]!) as {
      loginUrl: string;
    };
    const cookie = await loginWith(
      first.loginUrl.replace(PUBLIC_URL, single.url),
    );
    single.child.kill("SIGTERM");
    await single.exited;
    const env = { ...token, ACPHUB_LEDGER_URL: url };
    const a = await startHub(home, ["--node-id", "node-a"], env);
    cluster.afterNodes(async () => {
      a.child.kill("SIGKILL");
      await a.exited;
    });
    const b = await cluster.node(url, "node-b", 2000, undefined, [], SERVE);
    expect(await auth(a.url, cookie)).toBe(204);
    expect(await auth(b.h.url, cookie)).toBe(204);
  });
});
