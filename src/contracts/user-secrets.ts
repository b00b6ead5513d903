// The hub users' secrets (issue 36) as the ledger keeps them: opaque sealed text per user and
// name. The ledger never sees a key or a value; sealing and opening are app/'s
// (app/secrets-key.ts), and the hub reaches secrets only through the port below.
import type { Actor } from "./users.js";

/** A secret as anyone may see it: its name and when it was last set, never its value. */
export interface SecretInfo {
  name: string;
  updatedAt: number;
}

/** One stored row: the value sealed (AES-256-GCM, see app/secrets-key.ts), as text. */
export interface SealedSecret extends SecretInfo {
  user: string;
  sealed: string;
}

export interface SecretStore {
  /** Writes (or replaces) a user's secret. */
  putSecret(row: SealedSecret): Promise<void>;
  /** A user's secrets, sealed, by name. */
  sealedSecrets(user: string): Promise<SealedSecret[]>;
  /** A user's secrets' names and times, by name. */
  listSecrets(user: string): Promise<SecretInfo[]>;
  /** Removes one; false when there was none. */
  removeSecret(user: string, name: string): Promise<boolean>;
  /** Any one stored row (whose key sealed it), or undefined when none is stored. */
  anySecret(): Promise<SealedSecret | undefined>;
}

/**
 * What the hub may do with users' secrets (built in app/, which holds the key): set, list and
 * remove them on a user's behalf, audited as `actor`. Values go in, never out.
 */
export interface UserSecretsPort {
  set(
    actor: Actor,
    user: string,
    name: string,
    value: string,
  ): Promise<SecretInfo>;
  list(user: string): Promise<SecretInfo[]>;
  remove(actor: Actor, user: string, name: string): Promise<boolean>;
}
