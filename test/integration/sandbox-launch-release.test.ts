// A sandboxed agent's launch (app/sandbox.ts) holds a temp folder and a network list until it
// is released: by its owner once no process of it runs (a hub's retired agent process), else
// when acphub exits. A hub makes a launch per agent process it starts: they must not add an
// exit listener each (Node warns past ten) nor keep their folders until the hub exits.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { resolveAgent } from "../../src/agents/registry.js";
import { sandboxedLaunch } from "../../src/app/sandbox.js";
import { stopSandbox } from "../../src/host/sandbox/os-sandbox.js";
import { CLI, tempDir } from "../helpers/mock.js";

const warnings: Error[] = [];
const onWarning = (warning: Error) => void warnings.push(warning);
beforeEach(() => void process.on("warning", onWarning));
afterEach(async () => {
  process.off("warning", onWarning);
  await stopSandbox();
});

it("adds one exit listener for any number of launches, and a released launch's folder goes at once", async () => {
  const config = {
    agents: {
      mock: {
        command: process.execPath,
        args: [CLI, "mock-agent"],
        sandbox: true,
      },
    },
  };
  const state = tempDir("acphub-state-");
  const paths = { stateDir: state, configFile: join(state, "config.json") };
  const cwd = tempDir("acphub-ws-");
  const launch = () =>
    sandboxedLaunch(resolveAgent("mock", config), config, paths, cwd);
  // (The first starts the sandbox's runtime, which listens for the exit once too.)
  const launches = [await launch()];
  const listeners = process.listenerCount("exit");
  for (let i = 0; i < 11; i++) launches.push(await launch());
  expect(process.listenerCount("exit")).toBe(listeners);
  await new Promise((r) => setImmediate(r)); // (a warning comes a tick later)
  expect(warnings.map((w) => w.name)).not.toContain(
    "MaxListenersExceededWarning",
  );
  const folders = launches.map(
    (l) => /TMPDIR='?([^';]+)/.exec(l.args.join(" "))?.[1] ?? "",
  );
  for (const folder of folders) expect(existsSync(folder)).toBe(true);
  for (const launch of launches) launch.release?.();
  for (const folder of folders) expect(existsSync(folder)).toBe(false);
  launches[0]!.release?.(); // twice: nothing more happens
});
