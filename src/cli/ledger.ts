// `acphub ledger backup|restore FILE`: the SQLite ledger copied whole (app/ledger-backup.ts).
import { backupLedger, restoreLedger } from "../app/ledger-backup.js";
import type { ExitCode } from "./exit-codes.js";
import { out, withContext, type JsonOptions } from "./guard.js";

export interface LedgerOptions extends JsonOptions {
  force?: boolean;
}

// Runs a copy and reports it, for people or as JSON; notes go to stderr (they need acting on).
function copy(verb: string, file: string, o: LedgerOptions): Promise<ExitCode> {
  const run = verb === "backed up" ? backupLedger : restoreLedger;
  return withContext(o, async (ctx) => {
    const c = await run(ctx, file, o.force);
    if (o.json) return out(`${JSON.stringify(c)}\n`);
    out(`${verb} ${c.from} to ${c.to}: schema ${c.schema}, `);
    out(`${c.sessions} sessions, ${c.users} users\n`);
    for (const note of c.notes) process.stderr.write(`acphub: ${note}\n`);
  });
}

export const ledgerBackup = (file: string, o: LedgerOptions) =>
  copy("backed up", file, o);
export const ledgerRestore = (file: string, o: LedgerOptions) =>
  copy("restored", file, o);
