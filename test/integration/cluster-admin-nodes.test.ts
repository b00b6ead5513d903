// Issue 38: the admin page's `_acphub/nodes` on a two-node cluster on PostgreSQL: each node
// answers with both nodes and their health (alive, not draining, heartbeat age), marking
// itself; `acphub nodes list --json` says whether each drains too.
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CLUSTER_TOKEN, clusterFixture } from "../helpers/cluster.js";
import { INIT } from "../helpers/hub.js";
import { rawClient, resultOf } from "../helpers/raw-ws.js";

const fx = clusterFixture();

interface Nodes {
  cluster: boolean;
  nodes: {
    id: string;
    url: string;
    alive: boolean;
    draining: boolean;
    self: boolean;
    heartbeatAgeMs: number;
  }[];
}

describe("_acphub/nodes on a cluster", { timeout: 120_000 }, () => {
  it("lists both nodes with their health, each marking itself", async () => {
    const url = await fx.database();
    const a = await fx.node(url, "node-a");
    const b = await fx.node(url, "node-b");
    for (const [node, self] of [
      [a, "node-a"],
      [b, "node-b"],
    ] as const) {
      const c = await rawClient(node.h.acpUrl, CLUSTER_TOKEN);
      resultOf(await c.call("initialize", INIT));
      const got = resultOf<Nodes>(await c.call("_acphub/nodes", {}));
      c.close();
      expect(got.cluster).toBe(true);
      expect(
        got.nodes.map((n) => [n.id, n.url, n.alive, n.draining, n.self]),
      ).toEqual([
        ["node-a", a.h.url, true, false, self === "node-a"],
        ["node-b", b.h.url, true, false, self === "node-b"],
      ]);
      for (const n of got.nodes)
        expect(n.heartbeatAgeMs).toBeGreaterThanOrEqual(0);
    }
    const listed = await runCli(["nodes", "list", "--json"], {
      home: a.home,
      env: { ACPHUB_LEDGER_URL: url },
    });
    expect(
      (JSON.parse(listed.stdout) as Nodes).nodes.map((n) => [n.id, n.draining]),
    ).toEqual([
      ["node-a", false],
      ["node-b", false],
    ]);
  });
});
