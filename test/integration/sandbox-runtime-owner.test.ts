// The OS sandbox runtime belongs to the process, not to a host: inside one `acphub acp`, a
// sandboxed terminal of one session keeps its network proxy (a denied domain answers 403, not
// "connection refused") while another session's workflow, with its own host, starts and ends.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  editorTracker,
  INIT,
  mockConfig,
  onlyProtocolOnStdout,
  startEditor,
} from "../helpers/editor.js";
import { steps, tempDir, waitFor } from "../helpers/mock.js";

const tracker = editorTracker();
afterEach(() =>
  tracker.cleanup((e) => expect(onlyProtocolOnStdout(e.stdout())).toBe(true)),
);

// Asks the sandbox's proxy for a denied domain: the proxy answers 403 while it runs.
const PROBE = `python3 -c "
import urllib.request as u
try: u.urlopen('http://denied.example/', timeout=10); print('probe: open')
except u.HTTPError as e: print('probe: http', e.code)
except Exception as e: print('probe: error', e)
"`;

// Probes, says it started, waits (bounded) for the test's go, then probes again.
const TERMINAL = `${PROBE}; touch started; for i in $(seq 600); do [ -e go ] && break; sleep 0.1; done; ${PROBE}`;

const WORKFLOW = `name: w
steps:
  - { id: hello, run: "echo hello from the workflow" }
`;

describe("one sandbox runtime per process", () => {
  it("a terminal keeps its network while another session's workflow starts and ends", async () => {
    const home = tempDir("acphub-home-");
    const cwd = tempDir("acphub-proj-");
    mockConfig(home, [], { permissions: { mode: "approve-all" } });
    mkdirSync(join(cwd, ".acphub", "workflows"), { recursive: true });
    writeFileSync(join(cwd, ".acphub", "workflows", "w.yaml"), WORKFLOW);
    const e = tracker.track(startEditor(home));
    await e.agent.request("initialize", INIT);
    const open = () =>
      e.agent.request<{ sessionId: string }>("session/new", {
        cwd,
        mcpServers: [],
      });
    const main = (await open()).sessionId;
    const terminalTurn = e.agent.request("session/prompt", {
      sessionId: main,
      prompt: [
        { type: "text", text: steps({ terminal: { command: TERMINAL } }) },
      ],
    });
    expect(await waitFor(() => existsSync(join(cwd, "started")), 60_000)).toBe(
      true,
    );
    const other = (await open()).sessionId;
    const run = await e.agent.request<{ stopReason: string }>(
      "session/prompt",
      { sessionId: other, prompt: [{ type: "text", text: "/w" }] },
    );
    expect(run.stopReason).toBe("end_turn");
    expect(e.stdout()).toContain("hello from the workflow");
    writeFileSync(join(cwd, "go"), "");
    await terminalTurn;
    // The probes' answers as printed (each ends its line, escaped; the command text never does).
    const answers = /probe: (?:http \d+|open|error [^\\"]+)(?=\\)/g;
    const probes = [...e.stdout().matchAll(answers)].map((m) => m[0]);
    expect(probes).toEqual(["probe: http 403", "probe: http 403"]);
  });
});
