// Ledgers that misbehave on purpose, for the relay tests: a real SQLite ledger behind a proxy
// that replaces one method.
import { join } from "node:path";
import type { LedgerPort } from "../../src/engine/ports.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { HubError } from "../../src/shared/errors.js";
import { expect } from "vitest";
import { steps, tempDir } from "./mock.js";

/** `ledger` with `key` replaced by what `replace` makes of the real method (replacing `append`
 *  hides `appendTo`, as ledgerWith does: the relay then calls the replacement). */
export function withMethod<K extends keyof LedgerPort>(
  ledger: LedgerPort,
  key: K,
  replace: (real: LedgerPort[K]) => LedgerPort[K],
): LedgerPort {
  const real = (ledger[key] as (...a: unknown[]) => unknown).bind(
    ledger,
  ) as LedgerPort[K];
  return withMethods(ledger, { [key]: replace(real) });
}

// `ledger` with the given methods in place of its own.
function withMethods(
  ledger: LedgerPort,
  methods: Partial<LedgerPort>,
): LedgerPort {
  const hidden = "append" in methods && !("appendTo" in methods);
  return new Proxy(ledger, {
    get(target, name) {
      if (name in methods) return methods[name as keyof LedgerPort];
      if (hidden && (name === "appendTo" || name === "afterAppends"))
        return undefined;
      const value = Reflect.get(target, name) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** `ledger` failing the updates `fails` picks (as a full disk would), through `append` and through
 *  `appendTo` (the relay's path) alike: the failure comes after the call, as a commit's does. */
export function failingUpdates(
  ledger: LedgerPort,
  fails: () => boolean,
): LedgerPort {
  const error = () => new HubError("LEDGER_UNAVAILABLE", "disk full");
  return withMethods(ledger, {
    append: (id, kind, payload) =>
      kind === "update" && fails()
        ? Promise.reject(error())
        : ledger.append(id, kind, payload),
    appendTo: (id, kind, text, sink) => {
      if (kind !== "update" || !fails())
        return ledger.appendTo!(id, kind, text, sink);
      setImmediate(() => sink.failed(error()));
    },
  });
}

/** A SQLite ledger that fails to store the second update of a session (as a full disk would). */
export function poisonedLedger(): LedgerPort {
  let updates = 0;
  return failingUpdates(
    new SqliteLedger(join(tempDir(), "ledger.db")),
    () => ++updates === 2,
  );
}

/** A turn whose second update `poisonedLedger` fails to store. */
export const POISONED_TURN = steps(
  { text: "stored first" },
  { text: "not stored" },
  { text: "after it" },
);

/** What a client was sent of POISONED_TURN: the update stored before the failure, nothing after. */
export function expectOnlyStored(seen: string): void {
  expect(seen).toContain("stored first");
  expect(seen).not.toContain("not stored");
  expect(seen).not.toContain("after it");
}
