// Traces from `acphub run` and `flow run` (issue 40): a turn's spans reach a real OTLP/HTTP
// receiver before the process exits — whatever its exit code — and an agent that exports its
// own span over the env acphub gave it shows up under the turn's `invoke_agent` span, masked,
// without the operator's collector headers ever reaching the agent.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli, type CliResult } from "../helpers/cli.js";
import { CLI, steps, tempDir } from "../helpers/mock.js";
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from "../helpers/otlp.js";

let otlp: OtlpReceiver;
beforeEach(async () => {
  otlp = await startOtlpReceiver();
});
afterEach(() => otlp.close());

const SECRET = "mock-secret-value-4711";

// A home whose default agent is the mock, given MOCK_SECRET (and any other env) in its config.
function home(env: Record<string, string> = {}): string {
  const dir = tempDir();
  const mock = {
    command: process.execPath,
    args: [CLI, "mock-agent"],
    env: { MOCK_SECRET: SECRET, ...env },
  };
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({ defaultAgent: "mock", agents: { mock } }),
  );
  return dir;
}

// Tracing on, with batches held for a minute: only the flush at exit sends them in time.
const traced = () => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
  OTEL_EXPORTER_OTLP_HEADERS: "x-operator-key=operator-credential-9",
  OTEL_BSP_SCHEDULE_DELAY: "60000",
});

const turnSpan = (spans: ReceivedSpan[]) =>
  spans.find((s) => s.name === "invoke_agent mock");

describe("traces from acphub run", { timeout: 60_000 }, () => {
  it("sends the turn's span before exiting 0", async () => {
    const r = await runCli(["run", steps({ text: "hi" })], {
      home: home(),
      env: traced(),
    });
    expect(r.code).toBe(0);
    const span = turnSpan(otlp.spans);
    expect(span?.attributes["gen_ai.operation.name"]).toBe("invoke_agent");
    expect(span?.attributes["gen_ai.response.finish_reasons"]).toEqual([
      "end_turn",
    ]);
    expect(span?.service).toBe("acphub");
  });

  it("chat traces its turns too", async () => {
    const r = await runCli(["chat"], {
      home: home(),
      env: traced(),
      input: `${steps({ text: "one" })}\n${steps({ text: "two" })}\n`,
    });
    expect(r.code).toBe(0);
    const spans = otlp.spans.filter((s) => s.name === "invoke_agent mock");
    expect(spans.map((s) => s.attributes["acphub.prompt.seq"])).toHaveLength(2);
  });

  it("sends the span of a failed turn and of a turn cancelled by Ctrl-C", async () => {
    const failed = await runCli(
      ["run", steps({ error: { code: -32603, message: "agent broke" } })],
      { home: home(), env: traced() },
    );
    expect(failed.code).not.toBe(0);
    expect(turnSpan(otlp.spans)?.status?.code).toBe(2);

    const cancelled = await runCli(
      ["run", steps({ text: "started\n" }, { sleep: 30_000 })],
      {
        home: home(),
        env: traced(),
        onSpawn: (child) =>
          child.stdout!.on("data", (d: Buffer) => {
            if (d.toString().includes("started")) child.kill("SIGINT");
          }),
      },
    );
    expect(cancelled.code).toBe(130);
    const spans = otlp.spans.filter((s) => s.name === "invoke_agent mock");
    expect(spans).toHaveLength(2);
    expect(spans[1]!.attributes["gen_ai.response.finish_reasons"]).toEqual([
      "cancelled",
    ]);
  });

  it("a prompt refused by a spent budget (exit 8) still sends its refusal span", async () => {
    const dir = home();
    const config = JSON.parse(
      readFileSync(join(dir, "config.json"), "utf8"),
    ) as Record<string, unknown>;
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({
        ...config,
        limits: { budget: { agents: { mock: { tokens: 100 } } } },
      }),
    );
    const spend = JSON.stringify({
      steps: [{ text: "ok" }],
      usage: { inputTokens: 120, outputTokens: 0, totalTokens: 120 },
    });
    expect(
      (await runCli(["run", spend], { home: dir, env: traced() })).code,
    ).toBe(0);
    const refused = await runCli(["run", steps({ text: "no" })], {
      home: dir,
      env: traced(),
    });
    expect(refused.code).toBe(8);
    const spans = otlp.spans.filter((s) => s.name === "invoke_agent mock");
    expect(spans).toHaveLength(2);
    expect(spans[1]!.attributes["error.type"]).toBe("BUDGET_EXCEEDED");
    expect(spans[1]!.status?.code).toBe(2);
    expect(spans[1]!.status?.message).toContain("budget");
  });

  it("puts the agent's own span under the turn's invoke_agent span, masked", async () => {
    const r = await runCli(
      [
        "run",
        "--json",
        steps(
          { otelSpan: "mock work" },
          { env: ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_SERVICE_NAME"] },
        ),
      ],
      { home: home(), env: traced() },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("otel: 200");
    // The agent got acphub's token, never the operator's collector credential.
    expect(r.stdout).toContain(
      "OTEL_EXPORTER_OTLP_HEADERS=x-acphub-agent-token=",
    );
    expect(r.stdout).not.toContain("operator-credential-9");
    expect(r.stdout).toContain("OTEL_SERVICE_NAME=mock");
    const turn = turnSpan(otlp.spans)!;
    const own = otlp.spans.find((s) => s.name === "mock work");
    expect(own).toBeDefined();
    expect(own!.traceId).toBe(turn.traceId);
    expect(own!.parentSpanId).toBe(turn.spanId);
    expect(own!.service).toBe("mock");
    expect(own!.attributes["gen_ai.conversation.id"]).toBe(
      turn.attributes["gen_ai.conversation.id"],
    );
    expect(own!.attributes["acphub.prompt.seq"]).toBe(
      turn.attributes["acphub.prompt.seq"],
    );
    expect(JSON.stringify(own)).not.toContain(SECRET);
  });

  it("telemetry.agents false gives the agent no endpoint", async () => {
    const dir = home();
    const config = JSON.parse(
      readFileSync(join(dir, "config.json"), "utf8"),
    ) as Record<string, unknown>;
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ ...config, telemetry: { agents: false } }),
    );
    const r = await runCli(["run", steps({ otelSpan: "mock work" })], {
      home: dir,
      env: traced(),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("otel: no OTEL_EXPORTER_OTLP_ENDPOINT");
    expect(turnSpan(otlp.spans)).toBeDefined();
  });

  it("keeps a user's own OTEL endpoint in the agent's config", async () => {
    const r = await runCli(
      [
        "run",
        steps({
          env: ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS"],
        }),
      ],
      {
        home: home({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9/mine" }),
        env: traced(),
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9/mine\n",
    );
    expect(r.stdout).toContain("OTEL_EXPORTER_OTLP_HEADERS=\n");
  });

  it("its receiver refuses an export without the agent's token", async () => {
    const dir = tempDir();
    const go = join(dir, "go");
    let refused = 0;
    const r: CliResult = await runCli(
      [
        "run",
        steps({ env: ["OTEL_EXPORTER_OTLP_ENDPOINT"] }, { waitFile: go }),
      ],
      {
        home: home(),
        env: traced(),
        onSpawn: (child) => {
          let out = "";
          child.stdout!.on("data", (d: Buffer) => {
            out += d.toString();
            const m = /OTEL_EXPORTER_OTLP_ENDPOINT=(\S+)\n/.exec(out);
            if (!m || refused) return;
            refused = -1;
            void fetch(`${m[1]}/v1/traces`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ resourceSpans: [] }),
            })
              .then((res) => (refused = res.status))
              .finally(() => writeFileSync(go, ""));
          });
        },
      },
    );
    expect(r.code).toBe(0);
    expect(refused).toBe(401);
    expect(r.stdout).toMatch(
      /OTEL_EXPORTER_OTLP_ENDPOINT=http:\/\/127\.0\.0\.1:\d+\n/,
    );
  });
});

describe("traces from acphub flow run", { timeout: 60_000 }, () => {
  it("traces each step's turn, with the step agent's own span under it", async () => {
    const h = home();
    const cwd = tempDir();
    mkdirSync(join(cwd, ".acphub", "workflows"), { recursive: true });
    writeFileSync(
      join(cwd, ".acphub", "workflows", "one.yaml"),
      `name: one\nsteps:\n  - id: look\n    agent: mock\n    prompt: '${steps({ otelSpan: "step work" }, { text: "looked" })}'\n`,
    );
    const r = await runCli(["flow", "run", "one", "--json", "-C", cwd], {
      home: h,
      env: traced(),
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const turn = turnSpan(otlp.spans);
    expect(turn).toBeDefined();
    const own = otlp.spans.find((s) => s.name === "step work");
    expect(own?.traceId).toBe(turn!.traceId);
    expect(own?.parentSpanId).toBe(turn!.spanId);
  });
});
