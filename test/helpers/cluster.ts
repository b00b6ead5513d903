// A cluster for a test file (issue 23): one real PostgreSQL started before the file's tests,
// real `acphub serve` nodes on it with one token (as behind one load balancer), and their
// clients; nodes and clients are killed after each test, the database after the file.
import { afterAll, afterEach, beforeAll } from "vitest";
import { mockConfig } from "./editor.js";
import {
  connectClient,
  startHub,
  type HubTestClient,
  type RunningHub,
} from "./hub.js";
import { tempDir } from "./mock.js";
import { startPostgres, type PgServer } from "./postgres.js";

/** One token for every node, as a cluster behind one load balancer has. */
export const CLUSTER_TOKEN = "cluster-test-token";

/** A node of the cluster and its home (config, token). */
export interface ClusterNode {
  h: RunningHub;
  home: string;
}

// Registers the file's hooks; the handle starts nodes and clients that the hooks stop.
export function clusterFixture() {
  let server: PgServer | undefined;
  const hubs: RunningHub[] = [];
  const clients: HubTestClient[] = [];
  const stops: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    server = await startPostgres({ fsync: false });
  });
  afterAll(() => server?.stop());
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const h of hubs.splice(0)) {
      h.child.kill("SIGKILL");
      await h.exited;
    }
    for (const stop of stops.splice(0)) await stop();
  });
  return {
    /** A fresh database on the file's PostgreSQL: its URL. */
    database: (): Promise<string> => server!.database(),
    /** Stops the file's PostgreSQL (fast: connections are closed), waits, starts it again. */
    restartDatabase: (pauseMs: number): Promise<void> =>
      server!.restart(pauseMs),
    // A node on the shared ledger, with its own home (config, token) and node id.
    async node(
      url: string,
      id: string,
      leaseMs = 2000,
      heartbeatMs?: number,
      agentFlags: string[] = [],
      /** More of the node's config (its `serve` section…). */
      config: Record<string, unknown> = {},
    ): Promise<ClusterNode> {
      const home = tempDir();
      mockConfig(home, agentFlags, {
        cluster: { leaseMs, heartbeatMs },
        ...config,
      });
      const h = await startHub(home, ["--node-id", id], {
        ACPHUB_LEDGER_URL: url,
        ACPHUB_TOKEN: CLUSTER_TOKEN,
      });
      hubs.push(h);
      return { h, home };
    },
    // A WebSocket client of a node, closed after the test.
    client(
      h: RunningHub,
      onRequest?: Parameters<typeof connectClient>[2],
    ): HubTestClient {
      const c = connectClient(h, "ws", onRequest);
      clients.push(c);
      return c;
    },
    /** A node the test stopped itself: not killed again after it. */
    forget(h: RunningHub): void {
      hubs.splice(hubs.indexOf(h), 1);
    },
    /** Stops something of the test's after its nodes (a partition proxy). */
    afterNodes(stop: () => Promise<void>): void {
      stops.push(stop);
    },
  };
}
