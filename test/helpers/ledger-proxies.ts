// Ledgers that misbehave on purpose, for the relay tests: a real SQLite ledger behind a proxy
// that replaces one method.
import { join } from "node:path";
import type { LedgerPort } from "../../src/engine/ports.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { HubError } from "../../src/shared/errors.js";
import { expect } from "vitest";
import { steps, tempDir } from "./mock.js";

/** `ledger` with `key` replaced by what `replace` makes of the real method. */
export function withMethod<K extends keyof LedgerPort>(
  ledger: LedgerPort,
  key: K,
  replace: (real: LedgerPort[K]) => LedgerPort[K],
): LedgerPort {
  const real = (ledger[key] as (...a: unknown[]) => unknown).bind(
    ledger,
  ) as LedgerPort[K];
  const replaced = replace(real);
  return new Proxy(ledger, {
    get(target, name) {
      if (name === key) return replaced;
      const value = Reflect.get(target, name) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A SQLite ledger that fails to store the second update of a session (as a full disk would). */
export function poisonedLedger(): LedgerPort {
  let updates = 0;
  return withMethod(
    new SqliteLedger(join(tempDir(), "ledger.db")),
    "append",
    (append) =>
      (...args) =>
        args[1] === "update" && ++updates === 2
          ? Promise.reject(new HubError("LEDGER_UNAVAILABLE", "disk full"))
          : append(...args),
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
