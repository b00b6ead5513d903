// The key that seals the hub users' secrets (issue 36) and the sealing itself: AES-256-GCM
// (Node's crypto), a fresh random 12-byte IV per value, and the user's and the secret's names
// as additional authenticated data, so a row copied to another user or name does not open.
// The key is 32 random bytes: ACPHUB_SECRETS_KEY (base64 or hex), else the file `secrets.key`
// in the state folder (mode 0600), which only `acphub users secrets set` creates. The ledger
// never sees it (docs/decisions/2026-12-03-user-secrets.md).
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  randomBytes,
} from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HubError } from "../shared/errors.js";

/** The environment variable that gives the key instead of the file. */
export const SECRETS_KEY_ENV = "ACPHUB_SECRETS_KEY";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** A sealed value: `v1.<key id>.<base64 of IV, tag, ciphertext>`. */
const VERSION = "v1";

/** A key as loaded, with where it came from (every refusal names it). */
export interface SecretsKey {
  key: Buffer;
  /** A short hash of the key, stored with each value: a wrong key is told, not guessed. */
  id: string;
  /** "the key file /x/secrets.key" or "ACPHUB_SECRETS_KEY". */
  source: string;
  file: string;
}

/** Where the key file is: beside the SQLite ledger, in the state folder (both engines). */
export function secretsKeyFile(stateDir: string): string {
  return join(stateDir, "secrets.key");
}

/** The one line that makes a key file where there is none. */
export function makeKeyLine(file: string): string {
  return `node -e "require('fs').writeFileSync(process.argv[1], require('crypto').randomBytes(32).toString('base64') + '\\n', {mode: 0o600, flag: 'wx'})" ${JSON.stringify(file)}`;
}

// The key's short id (not the key: a hash of it under a label of its own).
function keyId(key: Buffer): string {
  return createHash("sha256")
    .update("acphub-secrets-key-id\0")
    .update(key)
    .digest("hex")
    .slice(0, 16);
}

// 32 bytes from hex (64 digits) or base64, or a refusal naming where the text came from.
function parseKey(text: string, source: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t)
    ? Buffer.from(t, "hex")
    : Buffer.from(t, "base64");
  if (
    key.length !== KEY_BYTES ||
    (!/^[0-9a-fA-F]{64}$/.test(t) && !/^[A-Za-z0-9+/_-]+=*$/.test(t))
  )
    throw new HubError(
      "CONFIG_INVALID",
      `${source} is not a secrets key: give 32 bytes as base64 (44 characters) or hex (64 digits)`,
    );
  return key;
}

// The key from ACPHUB_SECRETS_KEY or the file; undefined when neither exists.
export function loadSecretsKey(stateDir: string): SecretsKey | undefined {
  const file = secretsKeyFile(stateDir);
  const fromEnv = process.env[SECRETS_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== "") {
    const key = parseKey(fromEnv, SECRETS_KEY_ENV);
    return { key, id: keyId(key), source: SECRETS_KEY_ENV, file };
  }
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new HubError(
      "CONFIG_INVALID",
      `cannot read the key file ${file}: ${String(error)}`,
    );
  }
  if ((statSync(file).mode & 0o077) !== 0)
    throw new HubError(
      "CONFIG_INVALID",
      `the key file ${file} may be read by others: chmod 600 ${file}`,
    );
  const key = parseKey(text, `the key file ${file}`);
  return { key, id: keyId(key), source: `the key file ${file}`, file };
}

// The key, made (the file, mode 0600) when there is none: for setting a first secret.
export function loadOrMakeSecretsKey(stateDir: string): SecretsKey {
  const found = loadSecretsKey(stateDir);
  if (found) return found;
  const file = secretsKeyFile(stateDir);
  try {
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString("base64")}\n`, {
      mode: 0o600,
      flag: "wx",
    });
  } catch (error) {
    // Another command made it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return loadSecretsKey(stateDir) as SecretsKey;
}

// What binds a sealed value to its row: the user's and the secret's names.
function aad(user: string, name: string): Buffer {
  return Buffer.from(`acphub-secret\0${user}\0${name}`, "utf8");
}

// Seals one value for one user and name, with a fresh IV.
export function sealSecret(
  k: SecretsKey,
  user: string,
  name: string,
  value: string,
): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", k.key, iv);
  cipher.setAAD(aad(user, name));
  const body = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
  const packed = Buffer.concat([iv, cipher.getAuthTag(), body]);
  return `${VERSION}.${k.id}.${packed.toString("base64")}`;
}

/** The refusal of a value sealed with another key: names the key, changes nothing. */
export function wrongKey(k: SecretsKey, user: string, name: string): HubError {
  const file =
    k.source === SECRETS_KEY_ENV ? ` (the key file is ${k.file})` : "";
  return new HubError(
    "CONFIG_INVALID",
    `secret ${name} of ${user} was sealed with another key than ${k.source}${file}: nothing was decrypted or changed; restore the key that sealed it, or remove the secret and set it again`,
  );
}

// The secret as it was set, or a refusal: sealed by another key, or moved to another row.
export function openSecret(
  k: SecretsKey,
  user: string,
  name: string,
  sealed: string,
): string {
  const [version, id, data] = sealed.split(".");
  if (version !== VERSION || data === undefined)
    throw new HubError(
      "CONFIG_INVALID",
      `secret ${name} of ${user} is not one acphub sealed`,
    );
  if (id !== k.id) throw wrongKey(k, user, name);
  const packed = Buffer.from(data, "base64");
  try {
    const decipher = createDecipheriv(
      "aes-256-gcm",
      k.key,
      packed.subarray(0, IV_BYTES),
    );
    decipher.setAAD(aad(user, name));
    decipher.setAuthTag(packed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const body = packed.subarray(IV_BYTES + TAG_BYTES);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    throw new HubError(
      "CONFIG_INVALID",
      `secret ${name} of ${user} does not open with ${k.source}: it was altered or copied from another user's or name's row; set it again`,
    );
  }
}
