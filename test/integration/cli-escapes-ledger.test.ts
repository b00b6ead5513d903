// What an agent said reaches the terminal inert from `agents doctor`, from `sessions list|show`
// (read back from the ledger) and from `permissions list` too; their `--json` keeps it exactly.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { homeWithScriptAgent, jsonLines, runCli } from "../helpers/cli.js";
import { mockConfig } from "../helpers/editor.js";
import { CONTROLS, EVIL, INERT } from "../helpers/evil-text.js";
import { tempDir } from "../helpers/mock.js";
import { DecisionMemory } from "../../src/host/decision-memory.js";

// An agent whose every word is EVIL: its name, version, capabilities, auth method, its stderr
// and the error it answers session/new with.
const EVIL_AGENT = `
const EVIL = ${JSON.stringify(EVIL)};
const rl = require("node:readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
rl.on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize")
    send({ id: m.id, result: { protocolVersion: 1,
      agentInfo: { name: EVIL, title: EVIL, version: EVIL },
      agentCapabilities: { _meta: { note: EVIL } },
      authMethods: [{ id: EVIL, name: EVIL }] } });
  else if (m.method === "session/new") {
    process.stderr.write(EVIL + "\\n");
    send({ id: m.id, error: { code: -32603, message: EVIL, data: { details: EVIL } } });
  }
});`;

describe("agent text from doctor and the ledger", () => {
  it("agents doctor prints what the agent said inert", async () => {
    const home = homeWithScriptAgent("evil", EVIL_AGENT);
    const r = await runCli(["agents", "doctor", "evil"], { home });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`agent: ${INERT} ${INERT}`);
    expect(r.stdout).toContain(`auth methods: ${INERT}`);
    expect(r.stdout).toContain(`agent stderr: ${INERT}`);
    expect(r.stdout).not.toMatch(CONTROLS);
    expect(r.stderr).not.toMatch(CONTROLS);
  });

  it("sessions list, show and export print the history inert; JSON keeps it exactly", async () => {
    const home = tempDir();
    const scenario = join(home, "scenario.json");
    const turn = [
      { sessionInfo: { title: `title ${EVIL}` } },
      { text: `${EVIL}\n` },
      { toolCall: { toolCallId: "t1", title: `tool ${EVIL}`, kind: "read" } },
    ];
    writeFileSync(scenario, JSON.stringify({ turns: [{ steps: turn }] }));
    mockConfig(home, ["--scenario", scenario]);
    expect((await runCli(["run", "go"], { home })).code).toBe(0);

    const list = await runCli(["sessions", "list"], { home });
    expect(list.stdout).toContain(`title ${INERT}`);
    expect(list.stdout).not.toMatch(CONTROLS);
    const listJson = await runCli(["sessions", "list", "--json"], { home });
    expect(listJson.stdout).not.toMatch(CONTROLS);
    const [session] = JSON.parse(listJson.stdout) as Record<string, unknown>[];
    expect(session).toMatchObject({ title: `title ${EVIL}` });

    const id = String(session!["id"]);
    const show = await runCli(["sessions", "show", id], { home });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`agent: ${INERT}`);
    expect(show.stdout).toContain(`[tool] tool ${INERT}`);
    expect(show.stdout).not.toMatch(CONTROLS);
    const showJson = await runCli(["sessions", "show", id, "--json"], {
      home,
    });
    expect(showJson.stdout).not.toMatch(CONTROLS);
    const [shown] = jsonLines(showJson.stdout);
    const payloads = JSON.stringify(
      (shown!["events"] as { payload: unknown }[]).map((e) => e.payload),
    );
    for (const text of [`${EVIL}\n`, `tool ${EVIL}`, `title ${EVIL}`])
      expect(payloads).toContain(JSON.stringify(text).slice(1, -1));
    const exported = await runCli(["sessions", "export", id], { home });
    expect(exported.stdout).not.toMatch(CONTROLS);
    expect(jsonLines(exported.stdout)[0]).toMatchObject({
      session: { title: `title ${EVIL}` },
    });
  });

  it("permissions list shows a remembered command inert; --json keeps it exactly", async () => {
    const home = tempDir();
    DecisionMemory.inStateDir(home).remember({
      user: `eve${EVIL}`,
      workspace: home,
      kind: "execute",
      subject: `make ${EVIL}`,
      decision: "allow",
    });
    const list = await runCli(["permissions", "list"], { home });
    expect(list.code).toBe(0);
    // Quoted as JSON (ESC as \u001b), the C1 CSI made U+FFFD.
    expect(list.stdout).toContain("make \\u001b]0;pwned\\u0007");
    expect(list.stdout).toContain("\ufffd2J");
    expect(list.stdout).not.toMatch(CONTROLS);
    const json = await runCli(["permissions", "list", "--json"], { home });
    expect(json.stdout).not.toMatch(CONTROLS);
    expect(JSON.parse(json.stdout)).toMatchObject([
      { subject: `make ${EVIL}` },
    ]);
  });
});
