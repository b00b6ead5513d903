// An open (session/new, load, resume, fork) on a cluster is answered only once every node counts
// it: the session's live mark written and the open's hold given back, both written to the ledger
// without waiting. Before, a load on node B right after a session/new on A could be refused
// (cluster-quotas, once under load): A's hold still counted and the session's mark was not there.
import { expect, it } from "vitest";
import { ClusterQuotaCounter } from "../../src/cluster/quota-counter.js";
import type { QuotaStore } from "../../src/contracts/quota-store.js";
import type { HubUser } from "../../src/contracts/users.js";
import type { HubClient } from "../../src/hub/attachments.js";
import { Quotas } from "../../src/hub/quotas.js";
import type { SessionHub } from "../../src/hub/session-hub.js";
import { opening } from "../../src/server/admission.js";
import { silentLogger } from "../../src/shared/logger.js";
import { until } from "../helpers/hub.js";

it("answers an open only once the session's live mark and the given-back hold are written", async () => {
  // The ledger's writes the test lets through one at a time.
  const writes: (() => void)[] = [];
  const later = () => new Promise<void>((resolve) => writes.push(resolve));
  let ids = 0;
  const store: QuotaStore = {
    hold: async (hold) => {
      if (hold.kind === "live") await later();
      return ++ids;
    },
    release: () => later(),
    held: () => Promise.resolve(0),
    take: () => Promise.resolve(0),
  };
  const node = { leaseMs: 10_000, joined: () => Promise.resolve("n1") };
  const counter = new ClusterQuotaCounter(store, node, silentLogger());
  const quotas = new Quotas({ limits: { liveSessions: 1 } }, counter);
  const user: HubUser = { name: "alice", role: "member" };
  const client = { user } as HubClient;
  let answered = false;
  const open = opening(
    { quotas, hub: {} as SessionHub },
    client,
    undefined,
    () => {
      quotas.sessionOpen(user, "s1", true); // what attaching the session tells
      return Promise.resolve({ sessionId: "s1" });
    },
  ).then((result) => {
    answered = true;
    return result;
  });
  await until(() => writes.length === 2); // the live mark's, the hold's release
  await new Promise((resolve) => setImmediate(resolve));
  expect(answered).toBe(false);
  writes.shift()!();
  await new Promise((resolve) => setImmediate(resolve));
  expect(answered).toBe(false);
  writes.shift()!();
  expect(await open).toEqual({ sessionId: "s1" });
});
