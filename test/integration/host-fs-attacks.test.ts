// Path-escape attempts by a real agent process through acphub's fs sandbox: every one refused,
// nothing outside the roots read or written.
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostedMock, requests, type HostedAgent } from "../helpers/host.js";
import { tempDir } from "../helpers/mock.js";

const SECRET = "TOPSECRET-4711";
let base: string;
let W: string;
let O: string;
let hosted: HostedAgent;

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir))
    out[name] = readFileSync(join(dir, name), "utf8");
  return out;
}

beforeAll(async () => {
  base = tempDir("acphub-sandbox-");
  W = join(base, "work");
  O = join(base, "outside");
  mkdirSync(W);
  mkdirSync(O);
  mkdirSync(join(base, "work-evil"));
  writeFileSync(join(O, "secret.txt"), SECRET);
  writeFileSync(join(O, "existing.txt"), "original");
  writeFileSync(join(base, "work-evil", "secret.txt"), SECRET);
  writeFileSync(join(W, "inside.txt"), "line1\nline2\nline3\nline4");
  symlinkSync(join(O, "secret.txt"), join(W, "link-secret"));
  symlinkSync(O, join(W, "linkdir"));
  symlinkSync(join(W, "loop-b"), join(W, "loop-a"));
  symlinkSync(join(W, "loop-a"), join(W, "loop-b"));
  symlinkSync(join(W, "chain2"), join(W, "chain1"));
  symlinkSync(join(O, "secret.txt"), join(W, "chain2"));
  symlinkSync("../outside/secret.txt", join(W, "rel"));
  symlinkSync("/", join(W, "rootlink"));
  symlinkSync("..", join(W, "up"));
  hosted = await hostedMock("approve-all");
});
afterAll(() => hosted.close());

const read = (path: string) => ({ readFile: { path } });
const write = (path: string) => ({ writeFile: { path, content: "PWNED" } });

describe("fs sandbox attacks", () => {
  it("refuses every path escape and leaves everything outside untouched", async () => {
    const attempts = [
      read("secret.txt"),
      read("../outside/secret.txt"),
      read(`${W}/../outside/secret.txt`),
      read(`${O}/secret.txt`),
      read("/etc/passwd"),
      read(`${W}/link-secret`),
      write(`${W}/link-secret`),
      write(`${W}/linkdir/new.txt`),
      write(`${W}/linkdir/sub/deeper/new.txt`),
      read(`${W}/loop-a`),
      write(`${W}/loop-a/x`),
      read(`/proc/self/root${O}/secret.txt`),
      read(`${W}/a\u0000/../../outside/secret.txt`),
      read(`${W}/${"a/".repeat(3000)}x`),
      read(`${W}/a/b/../../../../../../../../etc/passwd`),
      read(`${W}/./../outside/secret.txt`),
      read("//etc/passwd"),
      read(`${W}/chain1`),
      read(`${W}/rel`),
      read(`${W}/rootlink/etc/passwd`),
      write(`${W}/linkdir/existing.txt`),
      read(`${base}/work-evil/secret.txt`),
      read(""),
      read("~/secret.txt"),
      write("new.txt"),
      read("/proc/self/cwd/package.json"),
      write(`${W}/missing/../linkdir/new2.txt`),
      read(`${W}/up/outside/secret.txt`),
      write(`${W}/up/outside/new.txt`),
      write(`/proc/self/root${O}/new.txt`),
      write(`${W}/rootlink/tmp/acphub-escape.txt`),
    ];
    const before = snapshot(O);
    const events = await hosted.turn(W, ...attempts);
    const results = requests(events);
    expect(results).toHaveLength(attempts.length);
    results.forEach((r, i) =>
      expect({ i, ok: r.ok }).toEqual({ i, ok: false }),
    );
    const text = JSON.stringify(events);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("root:x:0");
    expect(snapshot(O)).toEqual(before);
    expect(readdirSync(W).sort()).toEqual([
      "chain1",
      "chain2",
      "inside.txt",
      "link-secret",
      "linkdir",
      "loop-a",
      "loop-b",
      "rel",
      "rootlink",
      "up",
    ]);
    // Every refusal is an audit event saying why.
    const audits = events.filter((e) => e.type === "audit");
    expect(
      audits.every(
        (a) => a.type === "audit" && !a.allowed && a.reason.length > 0,
      ),
    ).toBe(true);
    expect(audits).toHaveLength(attempts.length);
  });

  it("errors say what is wrong: outside, relative, NUL, loop, missing", async () => {
    const events = await hosted.turn(
      W,
      read(`${O}/secret.txt`),
      read("rel.txt"),
      read(`${W}/x\u0000y`),
      read(`${W}/loop-a`),
      read(`${W}/nope.txt`),
    );
    const errors = requests(events).map(
      (r) => `${r.error?.code} ${r.error?.message}`,
    );
    expect(errors[0]).toMatch(
      /^-32001 .*is outside the session's allowed roots/,
    );
    expect(errors[1]).toMatch(/^-32602 path must be absolute/);
    expect(errors[2]).toMatch(/^-32602 path contains a NUL byte/);
    expect(errors[3]).toMatch(/^-32001 too many symbolic links/);
    expect(errors[4]).toBe(`-32002 file not found: ${W}/nope.txt`);
  });

  it("still allows what is inside, including through links that stay inside", async () => {
    const events = await hosted.turn(
      W,
      { readFile: { path: `${W}/inside.txt`, line: 2, limit: 2 } },
      read(`${W}/up/work/inside.txt`),
      { writeFile: { path: `${W}/sub/dir/new.txt`, content: "created" } },
    );
    expect(requests(events).map((r) => r.ok)).toEqual([true, true, true]);
    expect(JSON.stringify(events)).toContain('read: \\"line2\\\\nline3\\"');
    expect(readFileSync(join(W, "sub/dir/new.txt"), "utf8")).toBe("created");
  });
});

describe("fs reads and writes", () => {
  it("refuses binary files and files over the size cap", async () => {
    const small = await hostedMock("approve-all", {
      fsLimits: { maxReadBytes: 100, maxWriteBytes: 10 },
    });
    try {
      writeFileSync(join(W, "bin.dat"), Buffer.from([0x89, 0x50, 0x00, 0x01]));
      writeFileSync(join(W, "big.txt"), "x".repeat(200));
      const events = await small.turn(
        W,
        read(`${W}/bin.dat`),
        read(`${W}/big.txt`),
        write(`${W}/w.txt`),
      );
      const errors = requests(events).map((r) => r.error?.message);
      expect(errors[0]).toMatch(/is a binary file/);
      expect(errors[1]).toMatch(/is 200 bytes, over the read limit of 100/);
      expect(errors[2]).toBeUndefined(); // "PWNED" is 5 bytes
      const big = await small.turn(W, {
        writeFile: { path: `${W}/w2.txt`, content: "y".repeat(11) },
      });
      expect(requests(big)[0]?.error?.message).toMatch(
        /11 bytes, over the write limit of 10/,
      );
    } finally {
      await small.close();
    }
  });

  it("replaces a file atomically and keeps its mode", async () => {
    const file = join(W, "script.sh");
    writeFileSync(file, "old");
    chmodSync(file, 0o750);
    await hosted.turn(W, { writeFile: { path: file, content: "new" } });
    expect(readFileSync(file, "utf8")).toBe("new");
    expect(statSync(file).mode & 0o777).toBe(0o750);
    expect(readdirSync(W).filter((n) => n.includes(".acphub-"))).toEqual([]);
  });
});
