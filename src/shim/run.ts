// Runs the shim (shim.ts) between the editor's stdio and the hub link (link.ts).
import { LineSplitter } from "../protocol/ndjson.js";
import type { Logger } from "../shared/logger.js";
import { guardStdout } from "../stdio/stdout-guard.js";
import { openHubLink } from "./link.js";
import { Shim, type HubShimOptions } from "./shim.js";

type Msg = Record<string, unknown>;

// Runs the shim until the editor closes stdin (resolves) or the hub stays away (rejects).
export async function runHubShim(o: HubShimOptions): Promise<void> {
  const out = guardStdout(o.logger);
  const write = (m: Msg) =>
    void out
      .write(Buffer.from(`${JSON.stringify(m)}\n`))
      .catch(() => undefined);
  const shim = new Shim(write, o.logger);
  let fail: (error: Error) => void = () => undefined;
  const failed = new Promise<never>((_r, reject) => (fail = reject));
  shim.link = openHubLink({
    url: o.url,
    urls: o.urls,
    token: o.token,
    logger: o.logger,
    reconnectForMs: o.reconnectForMs,
    onMessage: (m) => shim.fromHubMessage(m),
    onUp: (gen) => shim.up(gen),
    onDown: (reason) => {
      o.logger.warn({ reason }, "hub connection lost; reconnecting");
      shim.down();
    },
    onGiveUp: (error) => {
      shim.giveUp(error.message);
      fail(error);
    },
  });
  try {
    await Promise.race([
      readEditor(o.maxMessageBytes, (m) => shim.fromEditor(m), o.logger),
      failed,
    ]);
  } finally {
    shim.link.close();
    process.stdin.destroy();
  }
}

// Reads the editor's JSON-RPC lines from stdin until it ends.
async function readEditor(
  max: number,
  onMessage: (m: Msg) => void,
  logger: Logger,
): Promise<void> {
  const splitter = new LineSplitter(max);
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    splitter.push(chunk, (line) => {
      const text = line.trim();
      if (!text) return;
      try {
        const value: unknown = JSON.parse(text);
        if (value && typeof value === "object" && !Array.isArray(value))
          onMessage(value as Msg);
      } catch {
        logger.warn("editor sent a line that is not JSON; ignored");
      }
    });
  }
}
