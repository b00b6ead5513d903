// The ACP registry client (issue 40) against a registry served on 127.0.0.1 by the test: an npx
// entry, binary entries whose archives hold a real ACP agent (a script running the mock agent),
// one without sha256, hostile archives, a bad hash and a registry that is not the schema.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CLI, tempDir } from "../helpers/mock.js";
import {
  platformKey,
  serveRegistry,
  sha256,
  tarGz,
  type RegistryServer,
} from "../helpers/registry-server.js";

const AGENT_SCRIPT = `#!/bin/sh\nexec "${process.execPath}" "${CLI}" mock-agent\n`;
const agentTar = (tag: string) =>
  tarGz([
    { name: "bin/", type: "5", mode: 0o755 },
    { name: "bin/mock-agent", body: AGENT_SCRIPT, mode: 0o755 },
    { name: "README", body: `mock agent ${tag}\n` },
    { name: "bin/agent-link", type: "2", link: "mock-agent" },
  ]);

let server: RegistryServer;
const outside = tempDir("acphub-outside-");

// A binary entry for this platform.
function binary(
  id: string,
  version: string,
  archive: string,
  bytes: Buffer | null,
  cmd = "./bin/mock-agent",
) {
  return {
    id,
    name: `Test ${id}`,
    version,
    description: `test agent ${id}`,
    distribution: {
      binary: {
        [platformKey()]: {
          archive: server.url(archive),
          cmd,
          ...(bytes ? { sha256: sha256(bytes) } : {}),
        },
      },
    },
  };
}

// A zip (made by zip(1), links kept as links) of a folder the callback fills.
function zipOf(fill: (dir: string) => void): Buffer {
  const dir = tempDir("acphub-zip-");
  fill(dir);
  execFileSync("zip", ["-q", "-r", "-y", "out.zip", "."], { cwd: dir });
  return readFileSync(join(dir, "out.zip"));
}

const hostile: Record<string, Buffer> = {
  "evil-dotdot": tarGz([{ name: "bin/../../escaped-dotdot.txt", body: "x" }]),
  "evil-abs": tarGz([{ name: join(outside, "abs.txt"), body: "x" }]),
  "evil-link": tarGz([
    { name: "out", type: "2", link: outside },
    { name: "out/through-link.txt", body: "x" },
  ]),
  "evil-relative-link": tarGz([
    { name: "bin/up", type: "2", link: "../../.." },
    { name: "bin/up/escaped-rel.txt", body: "x" },
  ]),
  "evil-link-chain": tarGz([
    { name: "s", type: "2", link: "." },
    { name: "l", type: "2", link: "s/.." },
  ]),
  "evil-hardlink": tarGz([
    { name: "h", type: "1", link: "../../../etc/passwd" },
  ]),
  "evil-zip-link": zipOf((d) => symlinkSync(outside, join(d, "out"))),
};

let v1: ReturnType<typeof buildV1> | undefined;
// The first registry, built once (its archives' bytes are what its sha256 values name).
function registryV1() {
  v1 ??= buildV1();
  return structuredClone(v1);
}

function buildV1() {
  const v1 = agentTar("1.0.0");
  const unverified = zipOf((d) => {
    mkdirSync(join(d, "bin"));
    writeFileSync(join(d, "bin", "mock-agent"), AGENT_SCRIPT, { mode: 0o755 });
  });
  server.files.set("/a/mock-bin-1.0.0.tar.gz", v1);
  server.files.set("/a/nosha.zip", unverified);
  server.files.set("/a/badhash.tar.gz", v1);
  for (const [id, bytes] of Object.entries(hostile))
    server.files.set(`/a/${id}.bin`, bytes);
  return {
    version: "1.0.0",
    agents: [
      {
        id: "acme-acp",
        name: "Acme",
        version: "1.2.0",
        description: "an npx agent",
        distribution: {
          npx: { package: "@acme/tool-cli@1.2.0", args: ["--acp"] },
        },
      },
      binary("mock-bin", "1.0.0", "/a/mock-bin-1.0.0.tar.gz", v1),
      binary("nosha-bin", "1.0.0", "/a/nosha.zip", null),
      {
        ...binary(
          "badhash-bin",
          "1.0.0",
          "/a/badhash.tar.gz",
          Buffer.from("other"),
        ),
      },
      ...Object.entries(hostile).map(([id, bytes]) =>
        binary(id, "1.0.0", `/a/${id}.bin`, bytes),
      ),
    ],
    extensions: [],
  };
}

// A home whose config points registry.url at the test's registry (and keeps another key).
function homeWithRegistry(): string {
  const home = tempDir("acphub-home-");
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify(
      {
        registry: { url: server.url("/registry.json") },
        timeouts: { requestMs: 60000 },
      },
      null,
      2,
    ),
  );
  return home;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the CLI's JSON, read loosely
const json = (stdout: string) => JSON.parse(stdout) as Record<string, any>;
const config = (home: string) =>
  JSON.parse(readFileSync(join(home, "config.json"), "utf8"));

async function refreshed(): Promise<string> {
  const home = homeWithRegistry();
  const r = await runCli(["agents", "registry", "update", "--json"], { home });
  expect(r.stderr).toBe("");
  expect(json(r.stdout)["snapshot"]["agents"]).toBe(registryV1().agents.length);
  return home;
}

beforeAll(async () => {
  server = await serveRegistry();
  server.files.set("/registry.json", Buffer.from(JSON.stringify(registryV1())));
});
afterAll(() => server.close());

describe("agents search (offline)", () => {
  it("searches the snapshot shipped in the package, whose recorded sha256 it checks", async () => {
    const r = await runCli(["agents", "search", "claude", "--json"]);
    expect(r.code).toBe(0);
    const out = json(r.stdout);
    expect(out["agents"].map((a: { id: string }) => a.id)).toEqual([
      "claude-code-acp",
    ]);
    const shipped = readFileSync(
      new URL("../../dist/registry/snapshot/registry.json", import.meta.url),
    );
    expect(out["snapshot"]).toMatchObject({
      origin: "shipped",
      sha256: createHash("sha256").update(shipped).digest("hex"),
    });
    expect(out["snapshot"]["date"]).toMatch(/^\d{4}-\d{2}-\d{2}/);
    const text = await runCli(["agents", "search"]);
    expect(text.stdout).toMatch(/^opencode +1\.1\.53 +binary/m);
    expect(text.stdout).toMatch(/shipped registry snapshot of 2026-02-07/);
  });
});

describe("agents registry update", () => {
  it("stores a valid registry from registry.url; search then uses it", async () => {
    const home = await refreshed();
    const r = await runCli(["agents", "search", "mock", "--json"], { home });
    const out = json(r.stdout);
    expect(out["snapshot"]).toMatchObject({
      origin: "updated",
      source: server.url("/registry.json"),
    });
    expect(out["agents"].map((a: { id: string }) => a.id)).toEqual([
      "mock-bin",
    ]);
  });

  it("refuses a registry that is not the schema, naming the first bad entry, and keeps the old snapshot", async () => {
    const home = await refreshed();
    const before = json(
      (await runCli(["agents", "search", "--json"], { home })).stdout,
    );
    const bad = registryV1();
    const target = (
      bad.agents[2] as {
        distribution: { binary: Record<string, { cmd?: string }> };
      }
    ).distribution.binary[platformKey()]!;
    delete target.cmd;
    server.files.set("/bad.json", Buffer.from(JSON.stringify(bad)));
    const cfg = config(home);
    cfg.registry.url = server.url("/bad.json");
    writeFileSync(join(home, "config.json"), JSON.stringify(cfg));
    const r = await runCli(["agents", "registry", "update"], { home });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /agent "nosha-bin" \(entry 3\): distribution\.binary\.[a-z0-9_-]+\.cmd/,
    );
    const after = json(
      (await runCli(["agents", "search", "--json"], { home })).stdout,
    );
    expect(after["snapshot"]).toEqual(before["snapshot"]);
  });
});

describe("a damaged snapshot", () => {
  it("is refused by its recorded sha256, and the next registry update replaces it", async () => {
    const home = await refreshed();
    const dir = join(home, "registry");
    const file = readdirSync(dir).find((f) => f.startsWith("registry-"))!;
    writeFileSync(join(dir, file), "{}");
    const r = await runCli(["agents", "search"], { home });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /does not match its recorded sha256 .* run `acphub agents registry update`/,
    );
    expect(
      (await runCli(["agents", "registry", "update"], { home })).code,
    ).toBe(0);
    expect(
      (await runCli(["agents", "search", "mock"], { home })).stdout,
    ).toMatch(/^mock-bin /m);
  });
});

describe("agents add, run, update, remove", () => {
  it("installs a checked binary, runs it through acphub run, updates it, removes it", async () => {
    const home = await refreshed();
    const add = await runCli(["agents", "add", "mock-bin", "--json"], { home });
    expect(add.stderr).toBe("");
    const dir1 = join(home, "agents", "mock-bin", "1.0.0");
    expect(json(add.stdout)).toMatchObject({
      name: "mock-bin",
      installDir: dir1,
      preview: false,
    });
    const entry = config(home).agents["mock-bin"];
    expect(entry).toMatchObject({
      command: join(dir1, "bin", "mock-agent"),
      registry: {
        id: "mock-bin",
        version: "1.0.0",
        distribution: "binary",
        sha256: sha256(server.files.get("/a/mock-bin-1.0.0.tar.gz")!),
      },
    });
    expect(config(home).timeouts).toEqual({ requestMs: 60000 });
    expect(readFileSync(join(dir1, "README"), "utf8")).toBe(
      "mock agent 1.0.0\n",
    );
    const run = await runCli(["run", "--agent", "mock-bin", "hello"], { home });
    expect(run.stdout).toBe("mock agent received: hello\n");
    const list = json(
      (await runCli(["agents", "list", "--json"], { home })).stdout,
    ) as unknown as { name: string }[];
    expect(list.find((a) => a.name === "mock-bin")).toMatchObject({
      origin: "registry",
      version: "1.0.0",
      installed: true,
    });
    expect(list.find((a) => a.name === "claude")).toMatchObject({
      origin: "built-in",
    });
    const text = await runCli(["agents", "list"], { home });
    expect(text.stdout).toMatch(/mock-bin +installed +registry 1\.0\.0/);

    const v2 = registryV1();
    const tar2 = agentTar("2.0.0");
    server.files.set("/a/mock-bin-2.0.0.tar.gz", tar2);
    v2.agents[1] = binary(
      "mock-bin",
      "2.0.0",
      "/a/mock-bin-2.0.0.tar.gz",
      tar2,
    );
    server.files.set("/registry.json", Buffer.from(JSON.stringify(v2)));
    try {
      const same = json(
        (await runCli(["agents", "update", "--json"], { home })).stdout,
      );
      expect(same).toEqual([
        expect.objectContaining({
          name: "mock-bin",
          from: "1.0.0",
          to: "1.0.0",
          updated: false,
        }),
      ]);
      expect(
        (await runCli(["agents", "registry", "update"], { home })).stdout,
      ).toMatch(/mock-bin: 1\.0\.0 → 2\.0\.0/);
      const up = await runCli(["agents", "update", "mock-bin", "--json"], {
        home,
      });
      expect(json(up.stdout)).toEqual([
        expect.objectContaining({ from: "1.0.0", to: "2.0.0", updated: true }),
      ]);
    } finally {
      server.files.set(
        "/registry.json",
        Buffer.from(JSON.stringify(registryV1())),
      );
    }
    const dir2 = join(home, "agents", "mock-bin", "2.0.0");
    expect(readFileSync(join(dir2, "README"), "utf8")).toBe(
      "mock agent 2.0.0\n",
    );
    expect(existsSync(dir1)).toBe(false);
    expect(config(home).agents["mock-bin"].registry.version).toBe("2.0.0");
    expect(
      (await runCli(["run", "--agent", "mock-bin", "again"], { home })).stdout,
    ).toBe("mock agent received: again\n");

    const rm = await runCli(["agents", "remove", "mock-bin", "--json"], {
      home,
    });
    expect(json(rm.stdout)).toMatchObject({
      name: "mock-bin",
      removedDir: join(home, "agents", "mock-bin"),
    });
    expect(config(home).agents).toBeUndefined();
    expect(config(home).registry).toEqual({
      url: server.url("/registry.json"),
    });
    expect(existsSync(join(home, "agents", "mock-bin"))).toBe(false);
    const again = await runCli(["agents", "remove", "mock-bin"], { home });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/no agent "mock-bin" added from the registry/);
  });

  it("adds an npx entry pinned to its version (or the one asked for) and launches it through npx", async () => {
    const home = await refreshed();
    const bin = tempDir("acphub-bin-");
    const record = join(bin, "npx-args.txt");
    writeFileSync(
      join(bin, "npx"),
      `#!/bin/sh\necho "$@" > "${record}"\nexec "${process.execPath}" "${CLI}" mock-agent\n`,
      { mode: 0o755 },
    );
    const env = { PATH: `${bin}:${process.env["PATH"]}` };
    const preview = await runCli(["agents", "add", "tool-cli", "--preview"], {
      home,
    });
    expect(preview.stdout).toMatch(
      /would add to "agents" in .*config\.json \(nothing written; --preview\)/,
    );
    expect(config(home).agents).toBeUndefined();
    expect((await runCli(["agents", "add", "acme"], { home })).code).toBe(0);
    expect(config(home).agents["acme-acp"]).toMatchObject({
      command: "npx",
      args: ["-y", "@acme/tool-cli@1.2.0", "--acp"],
      registry: { id: "acme-acp", version: "1.2.0", distribution: "npx" },
    });
    const run = await runCli(["run", "--agent", "acme-acp", "hi"], {
      home,
      env,
    });
    expect(run.stdout).toBe("mock agent received: hi\n");
    expect(readFileSync(record, "utf8")).toBe(
      "-y @acme/tool-cli@1.2.0 --acp\n",
    );
    const pinned = await runCli(["agents", "add", "acme-acp@1.1.0", "--json"], {
      home,
    });
    expect(json(pinned.stdout)["entry"]["args"]).toEqual([
      "-y",
      "@acme/tool-cli@1.1.0",
      "--acp",
    ]);
    expect(pinned.stderr).toMatch(/replaced "acme-acp" 1\.2\.0 with 1\.1\.0/);
  });

  it("resolves ids like hydra: ambiguity lists candidates, nothing suggests a name", async () => {
    const home = await refreshed();
    const many = await runCli(["agents", "add", "evil"], { home });
    expect(many.code).toBe(2);
    expect(many.stderr).toMatch(
      /"evil" matches several registry agents: evil-dotdot, evil-abs, evil-link/,
    );
    const none = await runCli(["agents", "add", "mok-bin"], { home });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /no registry agent "mok-bin" \(did you mean "mock-bin"\?\)/,
    );
    expect(existsSync(join(home, "agents"))).toBe(false);
  });
});

describe("refused downloads", () => {
  it("refuses an entry without sha256 unless --allow-unverified, which it says loudly", async () => {
    const home = await refreshed();
    const r = await runCli(["agents", "add", "nosha-bin"], { home });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/gives no sha256 .* --allow-unverified/);
    expect(existsSync(join(home, "agents"))).toBe(false);
    expect(config(home).agents).toBeUndefined();
    const ok = await runCli(
      ["agents", "add", "nosha-bin", "--allow-unverified"],
      { home },
    );
    expect(ok.code).toBe(0);
    expect(ok.stderr).toMatch(
      /WARNING: installing "nosha-bin" 1\.0\.0 UNVERIFIED/,
    );
    const entry = config(home).agents["nosha-bin"];
    expect(entry.registry).toMatchObject({ unverified: true });
    expect(entry.description).toMatch(/UNVERIFIED/);
    expect(
      (await runCli(["run", "--agent", "nosha-bin", "zip"], { home })).stdout,
    ).toBe("mock agent received: zip\n");
  });

  it("deletes an archive whose hash does not match and installs nothing", async () => {
    const home = await refreshed();
    const r = await runCli(["agents", "add", "badhash-bin"], { home });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /has sha256 [0-9a-f]{64}, the registry says [0-9a-f]{64}: deleted, nothing installed/,
    );
    expect(existsSync(join(home, "agents"))).toBe(false);
    expect(config(home).agents).toBeUndefined();
  });

  it("refuses hostile archives (../, absolute paths, links out) with nothing written outside", async () => {
    const home = await refreshed();
    const expected: Record<string, RegExp> = {
      "evil-dotdot":
        /"bin\/\.\.\/\.\.\/escaped-dotdot\.txt": path leaves the folder/,
      "evil-abs": /abs\.txt": absolute path/,
      "evil-link": /"out": link to an absolute path/,
      "evil-relative-link": /"bin\/up": link leaves the folder/,
      "evil-link-chain":
        /"l": link leads out of the folder through other links/,
      "evil-hardlink": /"h": path leaves the folder/,
      "evil-zip-link": /"out": link to an absolute path/,
    };
    for (const [id, message] of Object.entries(expected)) {
      const r = await runCli(["agents", "add", id], { home });
      expect(r.code, id).not.toBe(0);
      expect(r.stderr, id).toMatch(message);
      expect(r.stderr, id).toMatch(/nothing was installed/);
    }
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(home, "agents"))).toBe(false);
    const left = readdirSync(home).sort();
    expect(left).toEqual(["config.json", "registry"]);
    expect(config(home).agents).toBeUndefined();
  });
});
