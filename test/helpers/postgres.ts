// A real PostgreSQL server for the tests, started in a temporary folder on a free port (the same
// launcher the benchmarks use).
export {
  startPostgres,
  type PgServer,
} from "../../scripts/postgres-server.mjs";
