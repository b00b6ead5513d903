// The spans of `acphub serve` say who and where (issue 38): a turn's `invoke_agent` span names
// the hub user who prompted (`enduser.id`) and, on a node of a cluster, the node
// (`acphub.node.id`); every span's resource carries acphub's version (`service.version`).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clusterFixture, CLUSTER_TOKEN } from "../helpers/cluster.js";
import { mockConfig } from "../helpers/editor.js";
import { INIT, startHub, text, type HubTestClient } from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { startOtlpReceiver, type OtlpReceiver } from "../helpers/otlp.js";
import { teamFixture, TEAM_WORK } from "../helpers/team.js";
import { ACPHUB_VERSION } from "../../src/shared/version.js";

const team = teamFixture();
const cluster = clusterFixture();
let otlp: OtlpReceiver;
beforeEach(async () => {
  otlp = await startOtlpReceiver();
});
afterEach(async () => {
  await team.cleanup();
  await otlp.close();
});

// One turn in a new session; resolves with the turn's span once the receiver has it.
async function tracedTurn(c: HubTestClient) {
  await c.agent.request("initialize", INIT);
  const { sessionId } = await c.agent.request<{ sessionId: string }>(
    "session/new",
    { cwd: TEAM_WORK, mcpServers: [] },
  );
  await c.agent.request("session/prompt", {
    sessionId,
    prompt: text(steps({ text: "traced" })),
  });
  const mine = () =>
    otlp.spans.find(
      (s) =>
        s.name === "invoke_agent mock" &&
        s.attributes["gen_ai.conversation.id"] === sessionId,
    );
  await otlp.waitFor(() => mine() !== undefined);
  return mine()!;
}

describe(
  "acphub serve: who and where on the spans",
  { timeout: 90_000 },
  () => {
    it("a turn's span names the user who prompted; the resource names acphub's version", async () => {
      const t = await team.start(
        { alice: "member" },
        { telemetry: { endpoint: otlp.endpoint } },
      );
      const span = await tracedTurn(team.connect(t, "alice", "ws"));
      expect(span.attributes).toMatchObject({ "enduser.id": "alice" });
      expect(span.attributes["acphub.node.id"]).toBeUndefined();
      expect(span.resource).toMatchObject({
        "service.name": "acphub",
        "service.version": ACPHUB_VERSION,
      });
    });

    it("on a cluster node, a turn's span names the node", async () => {
      const url = await cluster.database();
      const home = tempDir();
      mockConfig(home, [], { telemetry: { endpoint: otlp.endpoint } });
      const h = await startHub(home, ["--node-id", "node-a"], {
        ACPHUB_LEDGER_URL: url,
        ACPHUB_TOKEN: CLUSTER_TOKEN,
      });
      try {
        const c = cluster.client(h);
        const span = await tracedTurn(c);
        expect(span.attributes).toMatchObject({ "acphub.node.id": "node-a" });
        expect(span.resource).toMatchObject({
          "service.version": ACPHUB_VERSION,
        });
      } finally {
        h.child.kill("SIGKILL");
        await h.exited;
      }
    });
  },
);
