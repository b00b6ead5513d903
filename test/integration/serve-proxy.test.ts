// `serve.trustedProxy` (issue 22, item 8): from a trusted address the user header names the
// user (created as a member on first sight with autoCreate); from any other address the header
// is ignored, so a request without a token is refused.
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { INIT } from "../helpers/hub.js";
import { teamFixture } from "../helpers/team.js";
import { runCli } from "../helpers/cli.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());

// Opens a WebSocket with these headers; whoami's answer, or the refused upgrade's status.
function whoamiOver(
  acpUrl: string,
  headers: Record<string, string>,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(acpUrl.replace(/^http/, "ws"), { headers });
    ws.on("unexpected-response", (_req, res) =>
      resolve({ status: res.statusCode }),
    );
    ws.on("error", reject);
    ws.on("open", () => {
      ws.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: INIT,
        }),
      );
      ws.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "_acphub/whoami",
          params: {},
        }),
      );
    });
    ws.on("message", (data: Buffer) => {
      const m = JSON.parse(data.toString()) as {
        id?: number;
        result?: unknown;
      };
      if (m.id !== 2) return;
      resolve(m.result);
      ws.close();
    });
  });
}

describe("acphub serve: behind a trusted proxy", { timeout: 90_000 }, () => {
  it("believes the header from a trusted address, creating the user as a member", async () => {
    const team = await fx.start(
      { alice: "viewer" },
      {
        serve: {
          trustedProxy: {
            addresses: ["127.0.0.1"],
            userHeader: "X-Auth-User",
            autoCreate: true,
          },
        },
      },
    );
    expect(await whoamiOver(team.h.acpUrl, { "X-Auth-User": "alice" })).toEqual(
      { name: "alice", role: "viewer" },
    );
    expect(await whoamiOver(team.h.acpUrl, { "X-Auth-User": "carol" })).toEqual(
      { name: "carol", role: "member" },
    );
    expect(
      await whoamiOver(team.h.acpUrl, { "X-Auth-User": "not valid!" }),
    ).toEqual({ status: 401 });
    const list = await runCli(["users", "list", "--json"], { home: team.home });
    expect(
      (JSON.parse(list.stdout) as { name: string }[]).map((u) => u.name),
    ).toEqual(["alice", "carol"]);
    // One spelling of who acted (issue 35): the new user, added through the proxy.
    const audit = await runCli(["audit", "--json"], { home: team.home });
    const added = (
      JSON.parse(audit.stdout) as {
        user: string;
        action: string;
        detail: Record<string, unknown>;
      }[]
    ).filter((e) => e.action === "user.add" && e.detail["name"] === "carol");
    expect(added.map((e) => [e.user, e.detail])).toEqual([
      ["carol", { via: "proxy", name: "carol", role: "member" }],
    ]);
  });

  it("ignores the header from any other address, and an unknown user without autoCreate", async () => {
    const elsewhere = await fx.start(
      { alice: "member" },
      { serve: { trustedProxy: { addresses: ["10.9.9.9"] } } },
    );
    expect(
      await whoamiOver(elsewhere.h.acpUrl, { "X-Forwarded-User": "alice" }),
    ).toEqual({ status: 401 });
    const trusted = await fx.start(
      { alice: "member" },
      { serve: { trustedProxy: { addresses: ["127.0.0.1"] } } },
    );
    expect(
      await whoamiOver(trusted.h.acpUrl, { "X-Forwarded-User": "alice" }),
    ).toEqual({ name: "alice", role: "member" });
    expect(
      await whoamiOver(trusted.h.acpUrl, { "X-Forwarded-User": "mallory" }),
    ).toEqual({ status: 401 });
  });
});
