// A real PostgreSQL server for the tests: initdb in a temporary folder, started with pg_ctl on a
// free port on 127.0.0.1 (as the `postgres` user when the tests run as root, since initdb refuses
// root), stopped after the tests. Each test gets its own database.
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

// Debian installs the server programs under /usr/lib/postgresql/<major>/bin: take the newest.
function pgBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root).sort((a, b) => Number(b) - Number(a))
    : [];
  return join(root, versions[0] ?? "15", "bin");
}

export const PG_BIN = pgBin();

export interface PgServer {
  port: number;
  /** A fresh empty database, as a postgres:// URL. */
  database(): Promise<string>;
  url(database: string): string;
  /** pg_ctl stop (fast) then start again on the same port: a Postgres restart. */
  restart(pauseMs?: number): Promise<void>;
  /** Stops the server without removing its data; startAgain() brings it back. */
  stopOnly(): void;
  startAgain(): void;
  stop(): void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        resolve(typeof address === "object" && address ? address.port : 0),
      );
    });
  });
}

// Runs a PostgreSQL program as a user initdb accepts.
function pgRun(program: string, args: string[]): void {
  const command = join(PG_BIN, program);
  const asRoot = process.getuid?.() === 0;
  execFileSync(
    asRoot ? "runuser" : command,
    asRoot ? ["-u", "postgres", "--", command, ...args] : args,
    { stdio: ["ignore", "ignore", "pipe"], cwd: tmpdir() },
  );
}

/** Starts a throwaway server; call stop() when done. */
export async function startPostgres(): Promise<PgServer> {
  const dir = mkdtempSync(join(tmpdir(), "acphub-pg-"));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  pgRun("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () =>
    pgRun("pg_ctl", [
      "-D",
      data,
      "-o",
      options,
      "-l",
      join(dir, "log"),
      "-w",
      "start",
    ]);
  start();
  let counter = 0;
  const url = (database: string) =>
    `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    async database() {
      const name = `t${process.pid}_${++counter}`;
      const client = new pg.Client({ connectionString: url("postgres") });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
      return url(name);
    },
    async restart(pauseMs = 0) {
      pgRun("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      await new Promise((r) => setTimeout(r, pauseMs));
      start();
    },
    stopOnly() {
      pgRun("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    },
    startAgain: start,
    stop() {
      try {
        pgRun("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
