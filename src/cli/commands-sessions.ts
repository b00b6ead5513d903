// The `acphub sessions` commands: the ledger that run, chat and acp write.
import type { Command } from "commander";
import { act } from "./command-kit.js";

// Adds `sessions list|show|delete|export|import|share|unshare` and `ledger` to the program.
export function addLedgerCommands(program: Command): void {
  const m = () => import("./sessions.js");
  const share = () => import("./sessions-share.js");
  const sessions = program
    .command("sessions")
    .description(
      "the session ledger: every session run, chat and acp (editors) recorded",
    )
    .addHelpText(
      "after",
      `
  list, show, delete and import take --json; export always writes JSON lines.

  Examples:
    acphub sessions list --cwd .
    acphub sessions show hub-1f0c… --json
    acphub sessions export hub-1f0c… -o session.jsonl && acphub sessions import session.jsonl`,
    );
  sessions
    .command("list")
    .description("list sessions, most recent first")
    .option("--json", "print them as JSON")
    .option("-C, --cwd <dir>", "only sessions in this folder")
    .option("--hub <url>", "list a running `acphub serve`'s sessions instead")
    .option("--token-file <file>", "the hub's bearer token (with --hub)")
    .action(act(program, m, "sessionsList"));
  sessions
    .command("show")
    .description("show a session's history")
    .argument("<id>", "session id")
    .option("--json", "print the session and its events as JSON")
    .option("--hub <url>", "show a running `acphub serve`'s session instead")
    .option("--token-file <file>", "the hub's bearer token (with --hub)")
    .action(act(program, m, "sessionsShow"));
  sessions
    .command("delete")
    .description("delete a session from the ledger")
    .argument("<id>", "session id")
    .option("--json", 'print {"deleted": ID} as JSON')
    .action(act(program, m, "sessionsDelete"));

  sessions
    .command("export")
    .description(
      "write a session (metadata and events) as JSON lines (always JSON: no --json needed)",
    )
    .argument("<id>", "session id")
    .option("-o, --output <file>", "write to FILE instead of stdout")
    .action(act(program, m, "sessionsExport"));
  sessions
    .command("share")
    .description(
      "let a user of the hub see (viewer) or drive (driver) a session",
    )
    .argument("<id>", "session id")
    .requiredOption("--with <user>", "the user")
    .option("--role <role>", "viewer or driver", "viewer")
    .option("--json", 'print {"sessionId","user","role"}')
    .action(act(program, share, "sessionsShare"));
  sessions
    .command("unshare")
    .description("take back a user's access to a hub session")
    .argument("<id>", "session id")
    .requiredOption("--with <user>", "the user")
    .option("--json", 'print {"sessionId","user","removed"}')
    .action(act(program, share, "sessionsUnshare"));
  sessions
    .command("move")
    .description("run a session's agent on another node of a cluster (admin)")
    .argument("<id>", "session id")
    .option("--to <node>", "the node to run it on")
    .option("--hub <url>", "ask this node (else the cluster's ledger)")
    .option("--json", 'print {"sessionId","node","from"}')
    .action(act(program, () => import("./nodes.js"), "sessionsMove"));
  sessions
    .command("import")
    .description("read a session written by export back into the ledger")
    .argument("<file>", "the export file, or - for stdin")
    .option("--replace", "overwrite a session with the same id")
    .option("--json", 'print {"imported": ID, "events": N} as JSON')
    .action(act(program, m, "sessionsImport"));
  addBackupCommands(program);
}

// Adds `ledger backup|restore` (a SQLite ledger; PostgreSQL's are pg_dump and pg_restore).
function addBackupCommands(program: Command): void {
  const m = () => import("./ledger.js");
  const ledger = program
    .command("ledger")
    .description("the ledger's database: back it up and restore it (SQLite)");
  ledger
    .command("backup")
    .description("copy the ledger to FILE, also while `acphub serve` runs")
    .argument("<file>", "the backup file to write")
    .option("--force", "replace FILE if it exists")
    .option("--json", 'print {"from","to","schema","sessions","users","notes"}')
    .action(act(program, m, "ledgerBackup"));
  ledger
    .command("restore")
    .description(
      "put a backup back as this state folder's ledger (no hub running)",
    )
    .argument("<file>", "the backup file to read")
    .option("--force", "replace the state folder's existing ledger")
    .option("--json", 'print {"from","to","schema","sessions","users","notes"}')
    .action(act(program, m, "ledgerRestore"));
}
