// A throwaway PostgreSQL for the benchmarks (Debian's postgresql package): BENCH_PG_URL when set,
// else initdb + pg_ctl on a free 127.0.0.1 port in a temporary folder (as `postgres` when run as
// root), stopped by the returned stop().
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

const ROOT = "/usr/lib/postgresql";

function run(program, args) {
  const versions = existsSync(ROOT)
    ? readdirSync(ROOT).sort((a, b) => b - a)
    : [];
  const command = join(ROOT, versions[0] ?? "15", "bin", program);
  const root = process.getuid?.() === 0;
  execFileSync(
    root ? "runuser" : command,
    root ? ["-u", "postgres", "--", command, ...args] : args,
    {
      stdio: ["ignore", "ignore", "inherit"],
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

/** { url, stop } of a PostgreSQL to benchmark against. */
export async function benchPostgres() {
  if (process.env.BENCH_PG_URL)
    return { url: process.env.BENCH_PG_URL, stop() {} };
  const dir = mkdtempSync(join(tmpdir(), "acphub-bench-pg-"));
  if (process.getuid?.() === 0) {
    const id = (flag) =>
      Number(execFileSync("id", [flag, "postgres"]).toString());
    chownSync(dir, id("-u"), id("-g"));
  }
  const data = join(dir, "data");
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const port = await freePort();
  run("pg_ctl", [
    "-D",
    data,
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    "-l",
    join(dir, "log"),
    "-w",
    "start",
  ]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
