// Small writes that change nothing any other write reads — a turn's usage row, an audit line —
// written together at the end of the tick in one transaction, each in a savepoint of its own (one
// that fails fails alone, its caller told). On its own, each was a transaction and a commit of
// its own: some 75–110 µs a prompt or a turn, a third of a short turn's cost in a busy hub
// (issue 39). Turns that end together (their ends committed in one batch) write their rows
// together. A caller's promise settles once its write has committed, as before; `flush` writes
// what is held at once (the ledger's close).
import type Database from "better-sqlite3";

interface Held {
  statement: Database.Statement;
  args: unknown[];
  settle: (error?: unknown) => void;
}

export class SideWrites {
  private held: Held[] = [];
  // Made once: better-sqlite3 builds its wrappers on every `transaction()` call.
  private readonly all: (writes: Held[], failed: Map<Held, unknown>) => void;
  private readonly one: (write: Held) => void;

  constructor(db: Database.Database) {
    this.one = db.transaction(({ statement, args }: Held) => {
      statement.run(...args);
    });
    this.all = db.transaction((writes: Held[], failed: Map<Held, unknown>) => {
      for (const write of writes)
        try {
          this.one(write); // a savepoint: a failure undoes this write alone
        } catch (error) {
          failed.set(write, error);
        }
    });
  }

  /** Runs `statement` with `args` at the end of the tick, with the others held then. */
  add(statement: Database.Statement, args: unknown[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const settle = (error?: unknown) =>
        error === undefined ? resolve() : reject(error);
      if (this.held.push({ statement, args, settle }) === 1)
        setImmediate(() => this.flush());
    });
  }

  /** Writes what is held now, in one transaction. */
  flush(): void {
    const writes = this.held;
    this.held = [];
    if (writes.length === 0) return;
    const failed = new Map<Held, unknown>();
    try {
      this.all(writes, failed);
    } catch (error) {
      for (const write of writes) write.settle(error);
      return;
    }
    for (const write of writes) write.settle(failed.get(write));
  }
}
