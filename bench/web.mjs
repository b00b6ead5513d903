// The web page's figures: the bundle size (raw and gzip) of what `npm run build` put in
// dist/web, and in Debian's Chromium (headless) the time to open a session of 5,000 recorded
// events (first contentful paint, and the whole history rendered), then the same for a
// session of 100,000 events with the page's JS heap after it opened, the frame times of a
// scroll through it, the time to scroll to its very top (older pages read as it goes) and the
// heap there (the page keeps a bounded window of the history). The load average is printed beside each figure (the machine is shared).
// Needs `npm run build`. Prints figures; never part of the test run.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import WebSocket from "ws";
import { CLI, median, rpcOver, spawnServe } from "./common.mjs";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BIG = Number(process.env.BENCH_BIG_EVENTS ?? 100_000);
const BIG_RUNS = Number(process.env.BENCH_BIG_RUNS ?? 3);
const load = () => `load ${loadavg()[0].toFixed(1)}`;
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
      ledger: { maxEventsPerSession: 200_000 },
      serve: { maxQueuedMessages: 200_000 },
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

// Records a session of `events` updates (10 turns) through the hub; its id.
async function recordSession(hub, events) {
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
    const text = JSON.stringify({ steps: turnSteps(events / turns - 1, t) });
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

// Opens the session in a fresh page: first contentful paint, the last event on screen, and
// (`deep`) the JS heap once it is shown and the frame times of a scroll up through it.
async function openOnce(browser, hub, sessionId, events, deep = false) {
  const context = await browser.newContext({
    viewport: { width: 1100, height: 900 },
  });
  const page = await context.newPage();
  await page.goto(await newCode(hub));
  await page.waitForSelector(".sessions");
  const newest = `[data-tool-id="t9-${Math.floor((events / 10 - 2) / 5)}"]`;
  await page.addInitScript(watchDom, newest);
  const started = Date.now();
  const history = watchHistory(page, started);
  await page.goto(`${hub.url}/?fresh=${started}#/s/${sessionId}`);
  const seen = await page.evaluate(async () => ({
    ...(await globalThis.benchSeen),
    now: performance.now(),
  }));
  const elapsed = Date.now() - started;
  const fcp = await page.evaluate(
    () =>
      performance.getEntriesByName("first-contentful-paint")[0]?.startTime ??
      -1,
  );
  const items = await page.locator(".transcript > *").count();
  const result = {
    fcp,
    ...seen,
    firstMs: elapsed - (seen.now - seen.firstAt),
    allMs: elapsed - (seen.now - seen.allAt),
    pageFirstMs: seen.firstAt,
    pageAllMs: seen.allAt,
    items,
    ...history,
    at: load(),
  };
  if (deep) {
    Object.assign(result, await heapAndScroll(page));
    Object.assign(result, await toTop(page));
  }
  await context.close();
  return result;
}

// Runs in the page before its own scripts: notes (performance.now(), ms after navigation
// started) when the first transcript item and the newest tool call card are on screen (in the
// DOM, with a box, in an animation frame: as waitForSelector's "visible"), so that nothing of
// the bench runs in the page while it opens (Playwright's selector engine, injected for
// waitForSelector, took the page's main thread for ~70 ms to compile and then polled it).
/* global MutationObserver */
function watchDom(newest) {
  const shown = (selector) => {
    const box = document.querySelector(selector)?.getBoundingClientRect();
    return !!box && box.width > 0 && box.height > 0;
  };
  globalThis.benchSeen = new Promise((done, fail) => {
    setTimeout(() => fail(new Error(`${newest} not shown in 300 s`)), 300_000);
    const seen = {};
    const frame = () => {
      seen.firstAt ??= shown(".transcript > *") ? performance.now() : undefined;
      if (!shown(newest)) return requestAnimationFrame(frame);
      seen.allAt = performance.now();
      done(seen);
    };
    const watch = new MutationObserver(() => {
      if (!document.querySelector(".transcript > *")) return;
      watch.disconnect();
      requestAnimationFrame(frame);
    });
    watch.observe(document, { subtree: true, childList: true });
  });
}

// When the page's WebSocket opened, and when its first `_acphub/history` went out and was
// answered (ms after navigation started): where the open time goes.
function watchHistory(page, started) {
  const times = { wsMs: -1, askMs: -1, answerMs: -1 };
  page.on("websocket", (ws) => {
    if (times.wsMs < 0) times.wsMs = Date.now() - started;
    let id;
    ws.on("framesent", ({ payload }) => {
      const text = String(payload);
      if (id !== undefined || !text.includes('"_acphub/history"')) return;
      id = JSON.parse(text).id;
      times.askMs = Date.now() - started;
    });
    ws.on("framereceived", ({ payload }) => {
      if (id === undefined || times.answerMs >= 0) return;
      if (JSON.parse(String(payload)).id === id)
        times.answerMs = Date.now() - started;
    });
  });
  return times;
}

// The page's JS heap (after a garbage collection) and a scroll of 120 frames up the transcript.
/* global document, requestAnimationFrame -- the scroll runs in the page */
async function heapAndScroll(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("HeapProfiler.collectGarbage");
  const { usedSize } = await cdp.send("Runtime.getHeapUsage");
  const frames = await page.evaluate(
    () =>
      new Promise((done) => {
        const el = document.querySelector(".scroller");
        const times = [];
        let last = performance.now();
        const step = (now) => {
          times.push(now - last);
          last = now;
          el.scrollTop -= 400;
          if (times.length < 120) requestAnimationFrame(step);
          else done(times.slice(1));
        };
        requestAnimationFrame(step);
      }),
  );
  frames.sort((a, b) => a - b);
  return {
    heapMiB: usedSize / 2 ** 20,
    frameP50: frames[Math.floor(frames.length / 2)],
    frameP95: frames[Math.floor(frames.length * 0.95)],
  };
}

// Scrolls to the top (the first recorded tool call on screen), older pages read on the way;
// the time it took and the JS heap there.
async function toTop(page) {
  const started = Date.now();
  await page.waitForFunction(
    () => {
      document.querySelector(".scroller").scrollTop = 0;
      return !!document.querySelector('[data-tool-id="t0-0"]');
    },
    null,
    { polling: 50, timeout: 600_000 },
  );
  const topMs = Date.now() - started;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("HeapProfiler.collectGarbage");
  const { usedSize } = await cdp.send("Runtime.getHeapUsage");
  return { topMs, topHeapMiB: usedSize / 2 ** 20 };
}

// The anchor: the same session/load from Node over a bare WebSocket (the hub's replay alone).
async function loadOverWs(hub, sessionId) {
  const ws = new WebSocket(`${hub.url.replace(/^http/, "ws")}/acp`, {
    headers: { Authorization: `Bearer ${hub.token}` },
  });
  await new Promise((r, j) => (ws.once("open", r), ws.once("error", j)));
  let updates = 0;
  const ask = rpcOver(ws, () => (updates += 1));
  await ask("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const started = Date.now();
  await ask("session/load", { sessionId, cwd: "/tmp", mcpServers: [] });
  const ms = Date.now() - started;
  ws.close();
  return { ms, updates, at: load() };
}

// Records a session of `events`, opens it `runs` times and prints the figures.
async function measure(browser, hub, events, runs, deep) {
  const recordStart = Date.now();
  const sessionId = await recordSession(hub, events);
  console.log(
    `recorded a session of ${events} events in ${Date.now() - recordStart} ms (${load()})`,
  );
  const bare = await loadOverWs(hub, sessionId);
  console.log(
    `  anchor: session/load from Node over a bare WebSocket: ${bare.ms} ms for ${bare.updates} updates (${bare.at})`,
  );
  const all = [];
  for (let i = 0; i < runs; i++)
    all.push(await openOnce(browser, hub, sessionId, events, deep));
  const list = (f, d = 0) => all.map((r) => `${r[f].toFixed(d)} (${r.at})`);
  const med = (f, d = 0) => median(all.map((r) => r[f])).toFixed(d);
  console.log(`  items in the DOM: ${all[0].items}`);
  console.log(
    `  first contentful paint: median ${med("fcp")} ms: ${list("fcp").join(", ")}`,
  );
  console.log(
    `  first transcript items on screen: median ${med("firstMs")} ms: ${list("firstMs").join(", ")}`,
  );
  console.log(
    `  the page's WebSocket open / first _acphub/history sent / answered: median ${med("wsMs")} / ${med("askMs")} / ${med("answerMs")} ms`,
  );
  console.log(
    `  whole history (last event on screen): median ${med("allMs")} ms: ${list("allMs").join(", ")}`,
  );
  console.log(
    `  the page's own clock (ms after navigation started): first items median ${med("pageFirstMs")}, whole history median ${med("pageAllMs")} ms: ${list("pageAllMs").join(", ")}`,
  );
  if (!deep) return;
  console.log(
    `  JS heap after GC: median ${med("heapMiB", 1)} MiB: ${list("heapMiB", 1).join(", ")}`,
  );
  console.log(
    `  scrolling up 400 px a frame: frame p50 ${med("frameP50", 1)} ms, p95 ${med("frameP95", 1)} ms: ${list("frameP95", 1).join(", ")}`,
  );
  console.log(
    `  scrolled to the very top (first event on screen): median ${med("topMs")} ms: ${list("topMs").join(", ")}`,
  );
  console.log(
    `  JS heap after GC at the top: median ${med("topHeapMiB", 1)} MiB: ${list("topHeapMiB", 1).join(", ")}`,
  );
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
  if (EVENTS > 0) await measure(browser, hub, EVENTS, RUNS, false);
  if (BIG > 0) await measure(browser, hub, BIG, BIG_RUNS, true);
} finally {
  await browser.close();
  hub.child.kill("SIGTERM");
}
