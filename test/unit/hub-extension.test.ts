// acphub's own extension has one table (src/shared/hub-extension.ts): each method named once,
// spelled nowhere else in src/, a handler for every request with its caller check, and
// docs/protocol.md showing the same methods and `_meta.acphub` keys.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import {
  isOwnRequest,
  sessionHandled,
} from "../../src/hub/extension-handlers.js";
import {
  HUB_EXTENSION,
  HUB_METHOD,
  OWN_META_KEYS,
  ownMetaOf,
  withOwnMeta,
} from "../../src/shared/hub-extension.js";

const SRC = new URL("../../src/", import.meta.url).pathname;

// Every source file of src/ (TypeScript and the page's TSX).
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : /\.tsx?$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  );
}

// A source's code without its comments (which may name a method in backquotes).
function withoutComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:])\/\/.*$/gm, "$1");
}

describe("acphub's extension table", () => {
  it("names each method once, all of them in HUB_METHOD", () => {
    const names = HUB_EXTENSION.map((r) => r.method);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(Object.values(HUB_METHOD).sort());
    for (const name of names) expect(name).toMatch(/^_acphub\//);
  });

  it("spells the `_acphub/` names as string literals in one file of src/", () => {
    const spelled = sourceFiles(SRC).filter((file) =>
      /["'`]_acphub\//.test(withoutComments(readFileSync(file, "utf8"))),
    );
    expect(spelled.map((f) => relative(SRC, f))).toEqual([
      "shared/hub-extension.ts",
    ]);
  });

  it("has a handler for each request, checking the row's caller", () => {
    for (const row of HUB_EXTENSION) {
      expect(isOwnRequest(row.method), row.method).toBe(row.kind === "request");
      if (row.kind !== "request") continue;
      // A handler acts on a session exactly when its caller is checked against one (an admin's
      // method may be about one, or about none).
      if (row.caller !== "admin")
        expect(sessionHandled(row.method), row.method).toBe(
          row.caller !== "anyone",
        );
      expect(row.caller).not.toBe("watchers");
    }
    expect(isOwnRequest("_acphub.test/echo")).toBe(false);
  });

  it("docs/protocol.md lists the same methods, kinds and callers, and the same _meta keys", () => {
    const doc = readFileSync(
      new URL("../../docs/protocol.md", import.meta.url),
      "utf8",
    );
    const rows = [
      ...doc.matchAll(
        /^\|\s*`(_acphub\/[^`]+)`\s*\|\s*(\w+)\s*\|\s*(\w+)\s*\|/gm,
      ),
    ];
    expect(rows.map((r) => [r[1], r[2], r[3]])).toEqual(
      HUB_EXTENSION.map((r) => [r.method, r.kind, r.caller]),
    );
    const section = doc.slice(doc.indexOf("`_meta.acphub` is acphub's own"));
    const keys = [...section.matchAll(/^\|\s*`(\w+)`\s*\|/gm)].map((m) => m[1]);
    expect(keys).toEqual([...OWN_META_KEYS]);
  });

  it("reads and adds `_meta.acphub` keys, keeping every other key", () => {
    expect(ownMetaOf(undefined)).toEqual({});
    expect(ownMetaOf({ acphub: "not an object" })).toEqual({});
    expect(ownMetaOf({ acphub: { seq: 3 } }).seq).toBe(3);
    expect(
      withOwnMeta({ other: 1, acphub: { author: "alice" } }, { seq: 7 }),
    ).toEqual({ other: 1, acphub: { author: "alice", seq: 7 } });
    expect(withOwnMeta(undefined, { seq: 1 })).toEqual({ acphub: { seq: 1 } });
  });
});
