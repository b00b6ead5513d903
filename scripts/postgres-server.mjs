// A throwaway PostgreSQL for the tests and the benchmarks (Debian's postgresql package): initdb in
// a temporary folder, pg_ctl on a free port on 127.0.0.1 — as the `postgres` user when running as
// root, since initdb refuses root — and stop() to remove it. Each caller gets its own databases.
import { execFileSync } from "node:child_process";
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

const ROOT = "/usr/lib/postgresql";

// Debian installs the server programs under /usr/lib/postgresql/<major>/bin: take the newest.
function binDir() {
  const versions = existsSync(ROOT)
    ? readdirSync(ROOT).sort((a, b) => Number(b) - Number(a))
    : [];
  return join(ROOT, versions[0] ?? "15", "bin");
}

// Runs a PostgreSQL program as a user initdb accepts.
function run(program, args) {
  const command = join(binDir(), program);
  const root = process.getuid?.() === 0;
  execFileSync(
    root ? "runuser" : command,
    root ? ["-u", "postgres", "--", command, ...args] : args,
    {
      stdio: ["ignore", "ignore", "pipe"],
      cwd: tmpdir(),
    },
  );
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts a server; see postgres-server.d.mts for the handle. */
export async function startPostgres({ fsync = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "acphub-pg-"));
  if (process.getuid?.() === 0) {
    const id = (flag) =>
      Number(execFileSync("id", [flag, "postgres"]).toString());
    chownSync(dir, id("-u"), id("-g"));
  }
  const data = join(dir, "data");
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${fsync ? "" : " -c fsync=off"}`;
  const start = () =>
    run("pg_ctl", [
      "-D",
      data,
      "-o",
      options,
      "-l",
      join(dir, "log"),
      "-w",
      "start",
    ]);
  const stopNow = () =>
    run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
  start();
  const url = (database) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let databases = 0;
  return {
    port,
    url,
    async database() {
      const name = `t${process.pid}_${++databases}`;
      const client = new pg.Client({ connectionString: url("postgres") });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
      return url(name);
    },
    async restart(pauseMs = 0) {
      run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      start();
    },
    stopOnly: stopNow,
    startAgain: start,
    stop() {
      try {
        stopNow();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
