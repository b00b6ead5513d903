// The reconnecting shim (`acphub acp --hub`) when its link to the hub drops (a TCP proxy in
// front of the hub, cut and brought back): a session/cancel the editor sends while the link is
// down still ends the turn once it is back; with the hold queue full, a request is answered
// with an error, never dropped.
import { afterEach, describe, expect, it } from "vitest";
import { startProxy, type TcpProxy } from "../browser/tcp-proxy.js";
import {
  INIT,
  mockConfig,
  startEditor,
  type EditorOptions,
  type TestEditor,
} from "../helpers/editor.js";
import { startHub, until, type RunningHub } from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";

const hubs: RunningHub[] = [];
const editors: TestEditor[] = [];
const proxies: TcpProxy[] = [];
afterEach(async () => {
  for (const e of editors.splice(0)) {
    e.child.kill("SIGKILL");
    await e.exited;
  }
  for (const h of hubs.splice(0)) {
    h.child.kill("SIGKILL");
    await h.exited;
  }
  for (const p of proxies.splice(0)) await p.close();
});

const text = (t: string) => [{ type: "text", text: t }];
const said = (e: TestEditor) => JSON.stringify(e.updates());

// A hub, a proxy in front of it, and an editor reaching the proxy through the shim.
async function throughProxy(onRequest?: EditorOptions["onRequest"]) {
  const home = tempDir();
  mockConfig(home);
  const h = await startHub(home);
  hubs.push(h);
  const proxy = await startProxy();
  proxies.push(proxy);
  proxy.target = { host: "127.0.0.1", port: Number(new URL(h.url).port) };
  const editor = startEditor(home, {
    args: ["--hub", proxy.origin],
    ...(onRequest ? { onRequest } : {}),
  });
  editors.push(editor);
  await editor.agent.request("initialize", INIT);
  return { home, proxy, editor };
}

describe("acphub acp --hub when its link drops", () => {
  it("a session/cancel sent while the link drops ends the turn once the link is back", async () => {
    const { home, proxy, editor } = await throughProxy();
    const { sessionId } = await editor.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: home, mcpServers: [] },
    );
    const turn = editor.agent.request<{ stopReason: string }>(
      "session/prompt",
      {
        sessionId,
        prompt: text(steps({ text: "long turn begins" }, { sleep: 120_000 })),
      },
    );
    await until(() => said(editor).includes("long turn begins"));
    proxy.down();
    await editor.agent.notify("session/cancel", { sessionId });
    await new Promise((r) => setTimeout(r, 300));
    proxy.up();
    expect((await turn).stopReason).toBe("cancelled");
  });

  it("a permission answer lost with a dropping link is given to the hub's question once the link is back", async () => {
    let asked = 0;
    const link: { proxy?: TcpProxy } = {};
    const answer = (optionId: string) => ({
      outcome: { outcome: "selected", optionId },
    });
    const t = await throughProxy((method) => {
      if (method !== "session/request_permission") return {};
      // The first answer goes into a link that is dying unnoticed; asking the user again
      // would get a different answer, which the turn must not see.
      if (++asked > 1) return answer("reject");
      const proxy = link.proxy!;
      proxy.stall();
      setTimeout(() => proxy.down(), 200);
      setTimeout(() => proxy.up(), 500);
      return answer("allow");
    });
    link.proxy = t.proxy;
    const { sessionId } = await t.editor.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: t.home, mcpServers: [] },
    );
    const turn = await t.editor.agent.request<{ stopReason: string }>(
      "session/prompt",
      { sessionId, prompt: text(steps({ permission: {} }, { text: "after" })) },
    );
    expect(turn.stopReason).toBe("end_turn");
    expect(said(t.editor)).toContain("permission granted (allow)");
    expect(asked).toBe(1);
  });

  it("with the hold queue full, a request is answered with an error, never dropped", async () => {
    const { proxy, editor } = await throughProxy();
    proxy.down();
    // The shim notices the drop only when it next talks to the hub; a request it holds shows it.
    const first = editor.agent
      .request("session/list", {})
      .catch((e: unknown) => e);
    const waiting = Array.from({ length: 9_999 }, () =>
      editor.agent.request("session/list", {}).catch((e: unknown) => e),
    );
    const over = await editor.agent
      .request("session/list", {})
      .catch((e: { message: string }) => e);
    expect(over).toMatchObject({
      message: expect.stringMatching(/10000 messages are already waiting/),
    });
    proxy.up();
    // Nothing held was dropped: the first and the last held requests are answered by the hub.
    expect(await first).toMatchObject({ sessions: [] });
    expect(await waiting.at(-1)).toMatchObject({ sessions: [] });
  });
});
