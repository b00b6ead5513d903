// Files denied by name stay denied under other names and spellings (issue 34, item 17): a hard
// link to `.env` is refused like `.env` itself, and keys and certificates (`*.pem`, `*.key`,
// ssh `id_*`) are denied by default, whatever their case or depth.
import { linkSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostedMock, requests, type HostedAgent } from "../helpers/host.js";
import { tempDir } from "../helpers/mock.js";

const SECRET = "TOPSECRET-0815";
let W: string;
let hosted: HostedAgent;

beforeAll(async () => {
  W = tempDir("acphub-secrets-");
  mkdirSync(join(W, "deep", "er"), { recursive: true });
  writeFileSync(join(W, ".env"), `API=${SECRET}`);
  linkSync(join(W, ".env"), join(W, "notes.txt"));
  linkSync(join(W, ".env"), join(W, "deep", "er", "readme.md"));
  for (const name of [
    "server.pem",
    "tls.KEY",
    "id_rsa",
    "id_ed25519",
    "deep/er/client.key",
    "deep/Cert.PEM",
  ])
    writeFileSync(join(W, name), SECRET);
  writeFileSync(join(W, "plain.txt"), "just text");
  hosted = await hostedMock("approve-all");
});
afterAll(() => hosted.close());

const read = (path: string) => ({ readFile: { path } });

describe("fs reads of secrets by other names", () => {
  it("refuses hard links to a denied file, and keys and certificates by name", async () => {
    const attempts = [
      "notes.txt",
      "deep/er/readme.md",
      "server.pem",
      "tls.KEY",
      "id_rsa",
      "id_ed25519",
      "deep/er/client.key",
      "deep/Cert.PEM",
      "deep/../server.pem",
    ].map((p) => read(join(W, p)));
    const events = await hosted.turn(
      W,
      ...attempts,
      read(join(W, "plain.txt")),
    );
    const results = requests(events);
    expect(results).toHaveLength(attempts.length + 1);
    results
      .slice(0, -1)
      .forEach((r, i) => expect({ i, ok: r.ok }).toEqual({ i, ok: false }));
    expect(results.at(-1)!.ok).toBe(true);
    const text = JSON.stringify(events);
    expect(text).not.toContain(SECRET);
    expect(text).toContain("just text");
    expect(text).toContain('refused by rule \\"hard-link\\"');
    expect(text).toContain('refused by rule \\"secret-file\\"');
  });
});
