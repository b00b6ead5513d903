// The second Ctrl-C of `acphub run` ("exit now", issue 40 follow-up): the turn still running — an
// agent that ignores the cancel — has its span sent before the process exits 130: the
// `invoke_agent` span in error, `error.type` interrupted. Batches are held for a minute, so only
// the flush on the way out can send it.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CLI, steps, tempDir } from "../helpers/mock.js";
import { startOtlpReceiver, type OtlpReceiver } from "../helpers/otlp.js";

let otlp: OtlpReceiver;
beforeEach(async () => {
  otlp = await startOtlpReceiver();
});
afterEach(() => otlp.close());

// A home whose default agent is the mock; the cancel grace long, so the turn outlives Ctrl-C.
function home(): string {
  const dir = tempDir();
  const mock = { command: process.execPath, args: [CLI, "mock-agent"] };
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      defaultAgent: "mock",
      agents: { mock },
      timeouts: { cancelGraceMs: 60_000 },
    }),
  );
  return dir;
}

describe("acphub run: the second Ctrl-C", { timeout: 60_000 }, () => {
  it("sends the unfinished turn's span, then exits 130", async () => {
    let interrupts = 0;
    const r = await runCli(
      ["run", steps({ text: "started\n" }, { hang: true })],
      {
        home: home(),
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
          OTEL_BSP_SCHEDULE_DELAY: "60000",
        },
        onSpawn: (child) => {
          child.stdout!.on("data", (d: Buffer) => {
            if (d.toString().includes("started") && interrupts === 0) {
              interrupts = 1;
              child.kill("SIGINT");
            }
          });
          // The first Ctrl-C is acknowledged; the agent ignores the cancel: Ctrl-C again.
          child.stderr!.on("data", (d: Buffer) => {
            if (d.toString().includes("Ctrl-C again") && interrupts === 1) {
              interrupts = 2;
              child.kill("SIGINT");
            }
          });
        },
      },
    );
    expect(interrupts).toBe(2);
    expect(r.code).toBe(130);
    const turn = otlp.spans.find((s) => s.name === "invoke_agent mock");
    expect(turn).toBeDefined();
    expect(turn!.status?.code).toBe(2);
    expect(turn!.attributes["error.type"]).toBe("interrupted");
    expect(turn!.status?.message).toContain(
      "acphub exited before the turn ended",
    );
  });
});
