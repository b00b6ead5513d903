// The web page's figures: the bundle size (raw and gzip) of what `npm run build` put in
// dist/web, and in Debian's Chromium (headless) the time to open a session of 5,000 recorded
// events: first contentful paint, and the whole history rendered. Needs `npm run build`.
// Prints figures; never part of the test run.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import WebSocket from "ws";
import { CLI, median, rpcOver, spawnServe } from "./common.mjs";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const WEB = new URL("../dist/web/", import.meta.url).pathname;

function bundleSize() {
  const files = [
    "index.html",
    ...readdirSync(join(WEB, "assets")).map((f) => `assets/${f}`),
  ];
  let raw = 0;
  let gzip = 0;
  for (const f of files) {
    const body = readFileSync(join(WEB, f));
    raw += body.length;
    gzip += gzipSync(body, { level: 9 }).length;
  }
  return { files: files.length, raw, gzip };
}

async function startHub() {
  const dir = mkdtempSync(join(tmpdir(), "acphub-bench-web-"));
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      defaultAgent: "mock",
      agents: {
        mock: { command: process.execPath, args: [CLI, "mock-agent"] },
      },
      ledger: { maxEventsPerSession: 100000 },
    }),
  );
  return { ...(await spawnServe(dir)), dir };
}

// One turn's steps: text chunks, tool calls moving to done, thoughts and plan updates.
function turnSteps(count, turn) {
  const steps = [];
  for (let i = 0; steps.length < count; i++) {
    const id = `t${turn}-${i}`;
    steps.push({ thought: `thinking ${i} ` });
    steps.push({
      toolCall: {
        toolCallId: id,
        title: `Read file ${i}.ts`,
        kind: "read",
        status: "pending",
        locations: [{ path: `/w/${i}.ts`, line: i }],
      },
    });
    steps.push({ toolCallUpdate: { toolCallId: id, status: "completed" } });
    steps.push({
      plan: [{ content: `step ${i}`, priority: "high", status: "in_progress" }],
    });
    steps.push({ text: `Some **Markdown** for item ${i}, with \`code\`.\n\n` });
  }
  return steps.slice(0, count);
}

// Records a session of EVENTS updates (10 turns) through the hub; its id.
async function recordSession(hub) {
  const ws = new WebSocket(`${hub.url.replace(/^http/, "ws")}/acp`, {
    headers: { Authorization: `Bearer ${hub.token}` },
  });
  await new Promise((r, j) => (ws.once("open", r), ws.once("error", j)));
  const ask = rpcOver(ws);
  await ask("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await ask("session/new", {
    cwd: "/tmp",
    mcpServers: [],
  });
  const turns = 10;
  for (let t = 0; t < turns; t++) {
    const text = JSON.stringify({ steps: turnSteps(EVENTS / turns - 1, t) });
    await ask("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text }],
    });
  }
  ws.close();
  return sessionId;
}

async function newCode(hub) {
  const res = await fetch(`${hub.url}/login/code`, {
    method: "POST",
    headers: { Authorization: `Bearer ${hub.token}` },
  });
  return (await res.json()).url;
}

// Opens the session in a fresh page: first contentful paint, and the last event on screen.
async function openOnce(browser, hub, sessionId) {
  const context = await browser.newContext({
    viewport: { width: 1100, height: 900 },
  });
  const page = await context.newPage();
  await page.goto(await newCode(hub));
  await page.waitForSelector(".sessions");
  const started = Date.now();
  await page.goto(`${hub.url}/?fresh=${started}#/s/${sessionId}`);
  await page.waitForSelector(
    `[data-tool-id="t9-${Math.floor((EVENTS / 10 - 2) / 5)}"]`,
    { timeout: 120_000 },
  );
  const allMs = Date.now() - started;
  const fcp = await page.evaluate(
    () =>
      performance.getEntriesByName("first-contentful-paint")[0]?.startTime ??
      -1,
  );
  const items = await page.locator(".transcript > *").count();
  await context.close();
  return { fcp, allMs, items };
}

const size = bundleSize();
console.log(
  `web bundle: ${size.files} files, ${(size.raw / 1024).toFixed(1)} KiB raw, ${(size.gzip / 1024).toFixed(1)} KiB gzip`,
);
const hub = await startHub();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
  const recordStart = Date.now();
  const sessionId = await recordSession(hub);
  console.log(
    `recorded a session of ${EVENTS} events in ${Date.now() - recordStart} ms`,
  );
  const runs = [];
  for (let i = 0; i < RUNS; i++)
    runs.push(await openOnce(browser, hub, sessionId));
  console.log(`items on screen: ${runs[0].items}`);
  console.log(
    `first contentful paint: median ${median(runs.map((r) => r.fcp)).toFixed(0)} ms (${runs.map((r) => r.fcp.toFixed(0)).join(", ")})`,
  );
  console.log(
    `whole history rendered: median ${median(runs.map((r) => r.allMs)).toFixed(0)} ms (${runs.map((r) => r.allMs).join(", ")})`,
  );
} finally {
  await browser.close();
  hub.child.kill("SIGTERM");
}
