// User tokens and login codes (issue 22): 32 random bytes, base64url; only their SHA-256 is
// stored, and a presented token is compared with the stored hashes in constant time.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A fresh secret: a user token or a login code. */
export function newSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** What the ledger keeps of a secret: its SHA-256, hex. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** Constant-time equality of two hex SHA-256 hashes. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === 32 && y.length === 32 && timingSafeEqual(x, y);
}
