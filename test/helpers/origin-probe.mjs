// Runs inside a network namespace (`unshare -rn`, lo up with 10.200.0.1 added): starts
// `acphub serve --host 0.0.0.0` and tries a WebSocket upgrade with each browser-like Origin
// given, printing one JSON line {url, loginUrl, answers: {origin: status}}.
// argv: CLI, ACPHUB_HOME, connect address, origins... ("PORT" in one stands for the hub's port)
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import WebSocket from "ws";

const [cli, home, address, ...origins] = process.argv.slice(2);
const env = { PATH: process.env.PATH ?? "", HOME: home, ACPHUB_HOME: home };
const args = [cli, "serve", "--host", "0.0.0.0", "--allow-plain-http"];
const child = spawn(process.execPath, [...args, "--port", "0", "--json"], {
  env,
  stdio: ["ignore", "pipe", "inherit"],
});
const first = await new Promise((resolve) =>
  createInterface({ input: child.stdout }).once("line", resolve),
);
const { url, loginUrl } = JSON.parse(first);
const token = readFileSync(join(home, "serve-token"), "utf8").trim();
const port = new URL(url).port;

// The status an upgrade with this Origin gets (101 when accepted).
function upgrade(origin) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://${address}:${port}/acp`, {
      headers: { Authorization: `Bearer ${token}`, Origin: origin },
    });
    ws.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode);
      res.resume();
    });
    ws.on("open", () => {
      resolve(101);
      ws.close();
    });
    ws.on("error", () => resolve(-1));
  });
}

const answers = {};
for (const origin of origins)
  answers[origin] = await upgrade(origin.replace("PORT", port));
process.stdout.write(`${JSON.stringify({ url, loginUrl, answers })}\n`);
child.kill("SIGKILL");
