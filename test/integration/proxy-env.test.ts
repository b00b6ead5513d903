// Proxy URLs with credentials (issue 34, item 18): agents and terminals get the proxy without
// its `user:password@`, and what acphub stores and logs masks the credentials.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { steps, tempDir } from "../helpers/mock.js";

const PASSWORD = "pr0xyPassw0rd";
const PROXIES = {
  HTTPS_PROXY: `http://proxyuser:${PASSWORD}@proxy.example:3128`,
  http_proxy: `http://proxyuser:${PASSWORD}@proxy.example:3128/`,
  HTTP_PROXY: `http://alice%40corp:${PASSWORD}@proxy.example:8080`,
  ALL_PROXY: `socks5://proxyuser:${PASSWORD}@proxy.example:1080`,
};

describe("proxy credentials", () => {
  it("terminals and agents get the proxy without its credentials", async () => {
    // Without the OS sandbox (it sets its own proxy variables), what acphub passes shows.
    const home = tempDir();
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ terminals: { sandbox: "off" } }),
    );
    const r = await runCli(
      [
        "run",
        "--json",
        "--permissions",
        "approve-all",
        "--cwd",
        tempDir(),
        steps({ env: true }, { terminal: { command: "env" } }),
      ],
      { home, env: PROXIES },
    );
    expect(r.code).toBe(0);
    const text = jsonLines(r.stdout)
      .map((l) => JSON.stringify(l))
      .join("\n");
    expect(text).toContain("HTTPS_PROXY=http://proxy.example:3128");
    expect(text).toContain("http_proxy=http://proxy.example:3128/");
    expect(text).toContain("HTTP_PROXY=http://proxy.example:8080");
    const agentEnv = /env: ([A-Z_a-z0-9,]*)/.exec(text)![1]!.split(",");
    expect(agentEnv).toContain("HTTPS_PROXY");
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain("proxyuser");
  });

  it("the ledger masks a proxy's credentials wherever they appear", async () => {
    const home = tempDir();
    const said = `the proxy is ${PROXIES.HTTPS_PROXY}`;
    const r = await runCli(["run", said], { home, env: PROXIES });
    expect(r.code).toBe(0);
    const list = await runCli(["sessions", "list", "--json"], { home });
    const id = (JSON.parse(list.stdout) as { id: string }[])[0]!.id;
    const exported = await runCli(["sessions", "export", id], {
      home,
      env: PROXIES,
    });
    expect(exported.stdout).toContain("http://***@proxy.example:3128");
    expect(exported.stdout).not.toContain(PASSWORD);
    expect(readFileSync(join(home, "ledger.db")).includes(PASSWORD)).toBe(
      false,
    );
  });
});
