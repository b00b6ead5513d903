import { describe, expect, it } from "vitest";
import {
  mergeServers,
  serversFor,
  toAcpServers,
} from "../../src/shared/mcp-servers.js";

const [a, web, events] = toAcpServers([
  { name: "a", command: "a-cmd" },
  {
    type: "http",
    name: "web",
    url: "http://127.0.0.1:9/mcp",
    headers: { X: "1" },
  },
  { type: "sse", name: "events", url: "http://127.0.0.1:9/sse" },
]);

describe("MCP servers", () => {
  it("the last list wins on a name, keeping first-appearance order", () => {
    const editorA = { name: "a", command: "editor", args: [], env: [] };
    expect(mergeServers([a!, web!], [editorA])).toEqual([editorA, web]);
  });

  it.each([
    [undefined, ["a"], ["web (http)", "events (sse)"]],
    [{ http: true }, ["a", "web"], ["events (sse)"]],
    [{ http: true, sse: true }, ["a", "web", "events"], []],
  ])("capabilities %j keep %j", (caps, kept, left) => {
    const { servers, warnings } = serversFor([a!, web!, events!], caps);
    expect(servers.map((s) => s.name)).toEqual(kept);
    expect(warnings.map((w) => /server (\S+ \(\w+\))/.exec(w)?.[1])).toEqual(
      left,
    );
  });

  it("headers become name/value pairs", () => {
    expect(web).toMatchObject({
      type: "http",
      headers: [{ name: "X", value: "1" }],
    });
  });
});
