// A node that keeps running while a newer acphub migrates the shared PostgreSQL ledger (a
// rolling upgrade) is told so: every migration announces its version on SCHEMA_CHANNEL
// (pg-schema.ts), and a node that hears a version newer than its own — or finds one after its
// LISTEN connection was lost — logs it once, with what to do (docs/ledger.md, "Upgrades").
import type { Logger } from "../../shared/logger.js";
import type { PgConnection } from "./pg-connection.js";
import type { PgListener } from "./pg-listen.js";
import { PG_SCHEMA_VERSION, SCHEMA_CHANNEL } from "./pg-schema.js";

// Listens for schema changes; the returned promise settles once it listens and has looked.
export function watchSchema(
  db: PgConnection,
  listener: PgListener,
  logger: Logger,
): Promise<() => void> {
  let told = PG_SCHEMA_VERSION;
  const heard = (version: number) => {
    if (!Number.isSafeInteger(version) || version <= told) return;
    told = version;
    logger.error(
      { schema: version, knows: PG_SCHEMA_VERSION },
      `ledger: the database's schema is now ${version}, migrated by a newer acphub while this node (schema ${PG_SCHEMA_VERSION}) runs: upgrade this node and restart it (as it is, a restart is refused); until then what newer nodes added is not done here — see docs/ledger.md, "Upgrades"`,
    );
  };
  const read = async () => {
    try {
      const { rows } = await db.query<{ version: number }>(
        "SELECT version FROM acphub_schema",
      );
      heard(Number(rows[0]?.version));
    } catch (error) {
      logger.warn({ err: error }, "ledger: schema version not read");
    }
  };
  // Once listening, one read: a migration between this node's start and its LISTEN is found too.
  return listener
    .listen(
      SCHEMA_CHANNEL,
      (payload) => heard(Number(payload)),
      () => void read(),
    )
    .then(async (stop) => {
      await read();
      return stop;
    });
}
