// The PostgreSQL the benchmarks measure against: BENCH_PG_URL when set, else a throwaway server
// (scripts/postgres-server.mjs) stopped by the returned stop().
import { startPostgres } from "../scripts/postgres-server.mjs";

/** { url, stop } of a PostgreSQL to benchmark against. */
export async function benchPostgres() {
  if (process.env.BENCH_PG_URL)
    return { url: process.env.BENCH_PG_URL, stop() {} };
  const server = await startPostgres();
  return { url: server.url("postgres"), stop: () => server.stop() };
}
