// Stored ledger events read back as objects: a payload is trusted only when it is a JSON object.
import type { LedgerEvent, StoredEvent } from "./ledger-port.js";

/** A JSON object, or undefined for anything else (damaged text, arrays, scalars). */
export function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  return undefined;
}

/** A stored event parsed; undefined when its text is not a JSON object. */
export function toEvent(stored: StoredEvent): LedgerEvent | undefined {
  const payload = parseObject(stored.text);
  return payload
    ? { seq: stored.seq, kind: stored.kind, payload, at: stored.at }
    : undefined;
}

/** Stored events parsed; the damaged ones are reported and left out. */
export function parseEvents(
  stored: StoredEvent[],
  onDamaged: (seq: number) => void,
): LedgerEvent[] {
  const out: LedgerEvent[] = [];
  for (const one of stored) {
    const event = toEvent(one);
    if (event) out.push(event);
    else onDamaged(one.seq);
  }
  return out;
}
