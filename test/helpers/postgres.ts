// A real PostgreSQL server for the tests, started in a temporary folder on a free port (the same
// launcher the benchmarks use), and one-off queries on it.
import pg from "pg";

export {
  startPostgres,
  type PgServer,
} from "../../scripts/postgres-server.mjs";

/** One query on the database at `url`, on a connection of its own: its rows. */
export async function sql<
  R extends pg.QueryResultRow = Record<string, unknown>,
>(url: string, query: string, args: unknown[] = []): Promise<R[]> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return (await db.query<R>(query, args)).rows;
  } finally {
    await db.end();
  }
}
