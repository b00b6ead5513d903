// The method table is the one source: no method twice, every served editor request has a
// handler, docs/protocol.md shows the same table, and capabilities derive from it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SERVED } from "../../src/engine/dispatch.js";
import {
  editorFacingCapabilities,
  relayedClientCapabilities,
} from "../../src/protocol/capabilities.js";
import {
  editorMethods,
  isRelayedFromAgent,
  METHOD_TABLE,
} from "../../src/protocol/method-table.js";

describe("the method table", () => {
  it("names each method once, and a handler serves every served editor request", () => {
    const names = METHOD_TABLE.map((e) => e.method);
    expect(new Set(names).size).toBe(names.length);
    const served = editorMethods()
      .filter((e) => e.handling === "served" && e.kind === "request")
      .map((e) => e.method)
      .sort();
    expect(Object.keys(SERVED).sort()).toEqual(served);
  });

  it("docs/protocol.md shows the same methods with the same handling", () => {
    const doc = readFileSync(
      new URL("../../docs/protocol.md", import.meta.url),
      "utf8",
    );
    const rows = [
      ...doc.matchAll(
        /^\|\s*`([^`]+)`\s*\|[^|]*\|[^|]*\|\s*\*\*(\w+)\*\*\s*\|/gm,
      ),
    ];
    expect(rows.map((r) => [r[1], r[2]])).toEqual(
      METHOD_TABLE.map((e) => [e.method, e.handling]),
    );
  });

  it("never advertises a refused capability, even when the agent offers it", () => {
    const caps = editorFacingCapabilities({
      sessionCapabilities: {
        archive: {},
        fork: null,
        additionalDirectories: {},
      },
      mcpCapabilities: { http: true, acp: true },
      auth: { logout: {} },
      somethingNew: { x: 1 },
    });
    expect(caps).toEqual({
      loadSession: true,
      sessionCapabilities: {
        list: {},
        resume: {},
        close: {},
        delete: {},
        fork: {},
        status: {},
        title: {},
        additionalDirectories: {},
      },
      mcpCapabilities: { http: true },
      auth: { logout: {} },
    });
  });

  it("relays toward the agent only what the editor advertised", () => {
    expect(relayedClientCapabilities({ elicitation: { form: {} } })).toEqual({
      elicitation: { form: {} },
    });
    expect(relayedClientCapabilities({ fs: { readTextFile: true } })).toEqual(
      {},
    );
    expect(isRelayedFromAgent("$/cancel_request")).toBe(false);
    expect(isRelayedFromAgent("session/update")).toBe(false);
    expect(isRelayedFromAgent("future/method")).toBe(true);
  });
});
