// `acphub editors config zed|jetbrains|neovim` through the real CLI: each editor's format (Zed's
// agent_servers.<name>.command/args/env, JetBrains' acp.json shape, the Neovim clients' Lua),
// --write merging into the editor's file with the user's other keys, comments and a backup kept,
// a file that is not valid JSON refused byte for byte untouched, and the written entry really
// launching `acphub acp`.
import { spawn } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { mockConfig } from "../helpers/editor.js";
import { tempDir } from "../helpers/mock.js";
import { parseJsonc } from "../../src/app/jsonc.js";

type Server = {
  type?: string;
  command: string;
  args: string[];
  env: Record<string, string>;
};
type Servers = { agent_servers: Record<string, Server> };

const zedFile = (home: string) => join(home, ".config", "zed", "settings.json");
const jbFile = (home: string) => join(home, ".jetbrains", "acp.json");

// A home whose config's default agent is the mock (HOME is the same folder in runCli).
function setup(): string {
  const home = tempDir();
  mockConfig(home);
  return home;
}

describe("acphub editors config", { timeout: 60_000 }, () => {
  it("prints Zed's agent_servers entry: custom, command, args acp --agent, env", async () => {
    const home = setup();
    const r = await runCli(["editors", "config", "zed"], { home });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(zedFile(home));
    const doc = JSON.parse(r.stdout) as Servers;
    const entry = doc.agent_servers["acphub mock"]!;
    expect(entry.type).toBe("custom");
    expect(typeof entry.command).toBe("string");
    expect(entry.args.slice(-3)).toEqual(["acp", "--agent", "mock"]);
    expect(entry.env).toEqual({ ACPHUB_HOME: home });
    expect(existsSync(zedFile(home))).toBe(false); // printing writes nothing

    const json = await runCli(["editors", "config", "zed", "--json"], { home });
    expect(JSON.parse(json.stdout)).toMatchObject({
      editor: "zed",
      file: zedFile(home),
      snippet: { agent_servers: { "acphub mock": { type: "custom" } } },
    });
  });

  it("--write merges into a commented settings.json, keeping the rest and a backup", async () => {
    const home = setup();
    mkdirSync(join(home, ".config", "zed"), { recursive: true });
    const before = `// Zed settings
{
  "theme": "One Dark", // the user's theme
  /* servers */
  "agent_servers": {
    "Other Agent": { "type": "custom", "command": "other", "args": [] },
  },
  "vim_mode": true,
}
`;
    writeFileSync(zedFile(home), before);
    const r = await runCli(["editors", "config", "zed", "--write"], { home });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const after = readFileSync(zedFile(home), "utf8");
    expect(after).toContain("// Zed settings");
    expect(after).toContain("// the user's theme");
    const doc = parseJsonc(after, "settings.json").value as Servers &
      Record<string, unknown>;
    expect(doc["theme"]).toBe("One Dark");
    expect(doc["vim_mode"]).toBe(true);
    expect(doc.agent_servers["Other Agent"]!.command).toBe("other");
    expect(doc.agent_servers["acphub mock"]!.args.slice(-3)).toEqual([
      "acp",
      "--agent",
      "mock",
    ]);
    const backups = readdirSync(join(home, ".config", "zed")).filter((f) =>
      f.startsWith("settings.json.acphub-backup-"),
    );
    expect(backups).toHaveLength(1);
    expect(
      readFileSync(join(home, ".config", "zed", backups[0]!), "utf8"),
    ).toBe(before);
    expect(r.stdout).toContain(backups[0]!);

    // Again: the entry is replaced in place, not added twice.
    const again = await runCli(["editors", "config", "zed", "--write"], {
      home,
    });
    expect(again.code).toBe(0);
    const twice = readFileSync(zedFile(home), "utf8");
    expect(twice.match(/"acphub mock"/g)).toHaveLength(1);
    expect(parseJsonc(twice, "s").value).toEqual(doc);
  });

  it("refuses a settings file that is not valid JSON, leaving it byte for byte", async () => {
    const home = setup();
    mkdirSync(join(home, ".config", "zed"), { recursive: true });
    const broken = '{\n  "theme": "One Dark",\n  "agent_servers": {\n';
    writeFileSync(zedFile(home), broken);
    const r = await runCli(["editors", "config", "zed", "--write"], { home });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /settings\.json is not valid JSON \(line \d+: .*\); it was left untouched/,
    );
    expect(readFileSync(zedFile(home), "utf8")).toBe(broken);
    expect(readdirSync(join(home, ".config", "zed"))).toEqual([
      "settings.json",
    ]);

    // JetBrains reads plain JSON: a comment there is refused too.
    mkdirSync(join(home, ".jetbrains"));
    const commented = '// mine\n{ "agent_servers": {} }\n';
    writeFileSync(jbFile(home), commented);
    const jb = await runCli(["editors", "config", "jetbrains", "--write"], {
      home,
    });
    expect(jb.code).not.toBe(0);
    expect(jb.stderr).toContain("acp.json is not valid JSON");
    expect(readFileSync(jbFile(home), "utf8")).toBe(commented);
  });

  it("creates JetBrains' acp.json when missing, then merges keeping other agents and keys", async () => {
    const home = setup();
    const created = await runCli(
      ["editors", "config", "jetbrains", "--write"],
      { home },
    );
    expect(created.code).toBe(0);
    const doc = JSON.parse(readFileSync(jbFile(home), "utf8")) as Servers;
    expect(Object.keys(doc)).toEqual(["agent_servers"]);
    const entry = doc.agent_servers["acphub mock"]!;
    expect(Object.keys(entry).sort()).toEqual(["args", "command", "env"]);
    expect(entry.args.slice(-3)).toEqual(["acp", "--agent", "mock"]);

    writeFileSync(
      jbFile(home),
      JSON.stringify({
        default_mcp_settings: {},
        agent_servers: { Mine: { command: "mine", args: [] } },
      }),
    );
    const merged = await runCli(["editors", "config", "jetbrains", "--write"], {
      home,
    });
    expect(merged.code).toBe(0);
    const after = JSON.parse(readFileSync(jbFile(home), "utf8")) as Servers &
      Record<string, unknown>;
    expect(after["default_mcp_settings"]).toEqual({});
    expect(Object.keys(after.agent_servers).sort()).toEqual([
      "Mine",
      "acphub mock",
    ]);
  });

  it("--write through a linked settings file rewrites the file it names, keeping the link", async () => {
    const home = setup();
    const dotfiles = join(home, "dotfiles");
    mkdirSync(dotfiles);
    writeFileSync(join(dotfiles, "acp.json"), '{ "agent_servers": {} }\n');
    mkdirSync(join(home, ".jetbrains"));
    symlinkSync(join(dotfiles, "acp.json"), jbFile(home));
    const r = await runCli(["editors", "config", "jetbrains", "--write"], {
      home,
    });
    expect(r.code).toBe(0);
    expect(lstatSync(jbFile(home)).isSymbolicLink()).toBe(true);
    const doc = JSON.parse(
      readFileSync(join(dotfiles, "acp.json"), "utf8"),
    ) as Servers;
    expect(Object.keys(doc.agent_servers)).toEqual(["acphub mock"]);
  });

  it("--hub launches the shim; neovim prints CodeCompanion and avante Lua and refuses --write", async () => {
    const home = setup();
    const hub = await runCli(
      [
        "editors",
        "config",
        "jetbrains",
        "--hub",
        "http://127.0.0.1:7777",
        "--json",
      ],
      { home },
    );
    const entries = (JSON.parse(hub.stdout) as { snippet: Servers }).snippet
      .agent_servers;
    expect(Object.keys(entries)).toEqual(["acphub hub"]);
    expect(entries["acphub hub"]!.args.slice(-3)).toEqual([
      "acp",
      "--hub",
      "http://127.0.0.1:7777",
    ]);

    const lua = await runCli(["editors", "config", "neovim"], { home });
    expect(lua.code).toBe(0);
    expect(lua.stdout).toContain('require("codecompanion.adapters").extend(');
    expect(lua.stdout).toMatch(
      /commands = \{ default = \{ ".*", "acp", "--agent", "mock" \} \}/,
    );
    expect(lua.stdout).toContain('acp_providers = {\n    ["acphub mock"] = {');
    const write = await runCli(["editors", "config", "neovim", "--write"], {
      home,
    });
    expect(write.code).not.toBe(0);
    expect(write.stderr).toContain("paste it");

    const unknown = await runCli(["editors", "config", "emacs"], { home });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain(
      "unknown editor emacs: one of zed, jetbrains, neovim",
    );
  });

  it("the written entry starts acphub acp, which answers initialize", async () => {
    const home = setup();
    const r = await runCli(["editors", "config", "zed", "--json"], { home });
    const entry = (JSON.parse(r.stdout) as { snippet: Servers }).snippet
      .agent_servers["acphub mock"]!;
    const child = spawn(entry.command, entry.args, {
      env: { PATH: process.env["PATH"] ?? "", HOME: home, ...entry.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: 1, clientCapabilities: {} },
      }) + "\n",
    );
    const line = await new Promise<string>((resolve) => {
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("\n")) resolve(out.split("\n")[0]!);
      });
    });
    child.stdin.end();
    child.kill();
    expect(JSON.parse(line)).toMatchObject({
      id: 1,
      result: { protocolVersion: 1 },
    });
  });
});
