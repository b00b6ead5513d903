// One read/write policy for every path an agent names, whatever the sandbox and permission
// mode: the credential paths, the roots' `.env*` files, acphub's state and config and the
// user's `denyRead` are refused by the fs handlers as the OS sandbox refuses them; files are
// opened by descriptor so a symlink swapped in mid-request never leads outside the roots.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PermissionMode } from "../../src/config/schema.js";
import type { Approver } from "../../src/host/permission-engine.js";
import {
  DEFAULT_FS_LIMITS,
  readTextFile,
  writeTextFile,
} from "../../src/host/fs-service.js";
import type { SandboxMode } from "../../src/host/sandbox/settings.js";
import { hostedMock, requests } from "../helpers/host.js";
import { steps, tempDir } from "../helpers/mock.js";

const SECRET = "SECRET-ENV-9931";
const TOKEN = "serve-token-5521";
let W: string;
let state: string;

beforeAll(() => {
  W = tempDir("acphub-fspolicy-");
  state = join(W, ".acphub-state");
  mkdirSync(state);
  mkdirSync(join(W, "sub"));
  mkdirSync(join(W, "private"));
  writeFileSync(join(W, ".env"), `API_KEY=${SECRET}\n`);
  writeFileSync(join(W, "sub", ".env.local"), `X=${SECRET}\n`);
  writeFileSync(join(state, "serve-token"), TOKEN);
  writeFileSync(join(W, "config.yaml"), `# ${SECRET}\n`);
  writeFileSync(join(W, "private", "key"), SECRET);
  writeFileSync(join(W, "ok.txt"), "fine");
  symlinkSync(join(W, ".env"), join(W, "innocent.txt"));
});

// Runs one turn of the mock agent under the given modes; returns its events and stop reason.
async function turn(
  mode: PermissionMode,
  sandbox: SandboxMode,
  list: Record<string, unknown>[],
) {
  const asked: string[] = [];
  const approver: Approver = async (request) => {
    asked.push(JSON.stringify(request.toolCall));
    return { outcome: "selected", optionId: request.options[0]!.optionId };
  };
  const hosted = await hostedMock(mode, {
    approver,
    sandbox: {
      mode: sandbox,
      denyRead: [join(W, "private")],
      protect: [state, join(W, "config.yaml")],
    },
  });
  try {
    const session = await hosted.agent.newSession({ cwd: W });
    const run = session.prompt(steps(...list));
    const events = [];
    for await (const e of run) events.push(e);
    return { events, result: await run.result, asked };
  } finally {
    await hosted.close();
  }
}

const read = (path: string) => ({ readFile: { path } });
const write = (path: string) => ({ writeFile: { path, content: "PWNED" } });

describe("the fs handlers refuse what the OS sandbox refuses", () => {
  const cases: [PermissionMode, SandboxMode][] = [
    ["approve-reads", "off"],
    ["ask", "off"],
    ["approve-all", "auto"],
    ["ask", "os"],
  ];
  it.each(cases)("in %s with sandbox %s", async (mode, sandbox) => {
    const denied = [
      [read(`${W}/.env`), "env-file", `${W}/.env`],
      [read(join(state, "serve-token")), "acphub-state", "serve-token"],
      [read(`${W}/sub/.env.local`), "env-file", ".env.local"],
      [read(`${W}/innocent.txt`), "env-file", ".env"],
      [read(`${W}/config.yaml`), "acphub-state", "config.yaml"],
      [read(`${W}/private/key`), "deny-read", "private/key"],
      [read(`${W}/sub/../.env`), "env-file", ".env"],
      [write(`${W}/.env`), "env-file", ".env"],
      [write(join(state, "serve-token")), "acphub-state", "serve-token"],
      [write(`${W}/.env.production`), "env-file", ".env.production"],
    ] as const;
    const { events, result, asked } = await turn(mode, sandbox, [
      ...denied.map(([step]) => step),
      read(`${W}/ok.txt`),
    ]);
    const results = requests(events);
    expect(results.map((r) => r.ok)).toEqual([
      ...denied.map(() => false),
      true,
    ]);
    denied.forEach(([, rule, path], i) => {
      const error = results[i]!.error!;
      expect(error.code).toBe(-32001);
      expect(error.message).toContain(`"${rule}"`);
      expect(error.message).toContain(path);
    });
    const text = JSON.stringify(events);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(TOKEN);
    expect(text).toContain('read: \\"fine\\"');
    // No question about a refused path, and the old files are intact.
    expect(asked.join("\n")).not.toMatch(/\.env|serve-token|private/);
    expect(readFileSync(join(W, ".env"), "utf8")).toContain(SECRET);
    expect(readFileSync(join(state, "serve-token"), "utf8")).toBe(TOKEN);
    expect(result.stopReason).toBe("end_turn");
  });
});

describe("open by descriptor", () => {
  let R: string;
  let OUT: string;
  beforeAll(() => {
    R = tempDir("acphub-race-");
    OUT = tempDir("acphub-race-out-");
    mkdirSync(join(R, "d"));
    writeFileSync(join(R, "d", "f.txt"), "inside");
    writeFileSync(join(OUT, "f.txt"), SECRET);
  });
  afterAll(() => undefined);

  it("a folder swapped with a link while reading and writing never leads outside", async () => {
    // A bounded loop (stopped early once the reads are done) swaps R/d between the real
    // folder and a link to OUT, while reads and writes of R/d/f.txt run.
    const swap = `const fs = require("node:fs"); process.chdir(process.argv[1]);
      process.stdout.write("ready\\n");
      for (let i = 0; i < 3000000; i++) {
        fs.renameSync("d", "d.real"); fs.symlinkSync(process.argv[2], "d");
        fs.unlinkSync("d"); fs.renameSync("d.real", "d");
      }`;
    const swapper = spawn(process.execPath, ["-e", swap, R, OUT], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    const exited = new Promise((resolve) => swapper.once("exit", resolve));
    await new Promise((resolve) => swapper.stdout.once("data", resolve));
    const seen: string[] = [];
    const path = join(R, "d", "f.txt");
    for (let i = 0; i < 250; i++) {
      const reads = Array.from({ length: 8 }, () =>
        readTextFile({ path }, [R], DEFAULT_FS_LIMITS).then(
          (r) => seen.push(r.content),
          () => undefined,
        ),
      );
      const written = writeTextFile(
        { path, content: "inside" },
        [R],
        DEFAULT_FS_LIMITS,
      ).catch(() => undefined);
      await Promise.all([...reads, written]);
    }
    swapper.kill("SIGKILL");
    await exited;
    expect(seen.filter((c) => c !== "inside")).toEqual([]);
    expect(readFileSync(join(OUT, "f.txt"), "utf8")).toBe(SECRET);
  });
});
