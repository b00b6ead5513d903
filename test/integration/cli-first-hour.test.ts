// Issue 28: the rough edges a newcomer meets in the first hour at the command line, each
// through the real CLI with a temporary ACPHUB_HOME.
import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { configSchema } from "../../src/config/schema.js";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/mock.js";

// Every key path the config schema allows, descending into objects (records and lists are
// one key each), so a key added to the schema later is checked too.
function schemaKeys(schema: z.ZodType, prefix = ""): string[] {
  const inner =
    schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
  if (!(inner instanceof z.ZodObject)) return [prefix];
  return Object.entries(inner.shape as Record<string, z.ZodType>).flatMap(
    ([key, value]) => schemaKeys(value, prefix ? `${prefix}.${key}` : key),
  );
}

const at = (tree: unknown, path: string): { found: boolean; value: unknown } =>
  path
    .split(".")
    .reduce<{ found: boolean; value: unknown }>(
      (acc, key) =>
        acc.found &&
        acc.value !== null &&
        typeof acc.value === "object" &&
        key in acc.value
          ? { found: true, value: (acc.value as Record<string, unknown>)[key] }
          : { found: false, value: undefined },
      { found: true, value: tree },
    );

// The text of `config show` without its comments: the JSON it annotates.
const uncommented = (text: string) =>
  JSON.parse(
    text
      .split("\n")
      .filter((l) => !l.startsWith("//"))
      .map((l) => l.replace(/ {2}\/\/ default.*$/, ""))
      .join("\n"),
  ) as unknown;

describe("config show lists every key of the schema with its default", () => {
  it("each schema key is in the text and the JSON, marked as a default", async () => {
    const home = tempDir("acphub-home-");
    const keys = schemaKeys(configSchema);
    expect(keys).toContain("serve.idleTimeoutMs");
    const text = await runCli(["config", "show"], { home });
    expect(text.code).toBe(0);
    const json = JSON.parse(
      (await runCli(["config", "show", "--json"], { home })).stdout,
    ) as { config: unknown; defaults: string[] };
    expect(uncommented(text.stdout)).toEqual(json.config);
    const missing = keys.filter((k) => !at(json.config, k).found);
    expect(missing).toEqual([]);
    const unmarked = keys.filter(
      (k) =>
        !json.defaults.some((d) => k === d || k.startsWith(`${d}.`)) ||
        !new RegExp(
          `"${k.split(".").at(-1)!.replace("$", "\\$")}": .*// default`,
        ).test(text.stdout),
    );
    expect(unmarked).toEqual([]);
    for (const [key, value] of [
      ["timeouts.requestMs", 120000],
      ["ledger.retryMs", 15000],
      ["ledger.retentionDays", null],
      ["serve.maxConnections", 256],
      ["serve.cancelOnDisconnect", false],
      ["terminals.sandbox", "auto"],
    ] as const)
      expect(at(json.config, key).value).toBe(value);
    expect(text.stdout).toContain(
      '"retentionDays": null,  // default: off: sessions are kept',
    );
  });
});

// A TCP server on a free loopback port, to make that port busy.
async function busyPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve()),
  );
  return { server, port: (server.address() as { port: number }).port };
}

describe("serve on a port in use", () => {
  it("exits 2 with one line naming the port and what to do", async () => {
    const { server, port } = await busyPort();
    try {
      const r = await runCli(["serve", "--port", String(port)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `acphub: port ${port} on 127.0.0.1 is already in use: pick another with --port N, or --port 0 for a free one\n`,
      );
    } finally {
      server.close();
    }
  });
});
