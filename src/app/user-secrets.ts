// Each hub user's secrets (issue 36): set, listed (names only) and removed by the command line
// and, through the port below, by the hub; opened only into that user's agent environment (the
// AgentEnvSource), and learned by every log masker as they are opened. Values are checked here
// (an environment variable's name, at most 64 KiB), changes are audited without the value.
import type { AgentEnvSource } from "../contracts/agent-env.js";
import type {
  SecretInfo,
  SecretStore,
  UserSecretsPort,
} from "../contracts/user-secrets.js";
import {
  BUILTIN_ADMIN,
  type Actor,
  type AuditPort,
  type UserStore,
} from "../contracts/users.js";
import { loaderRefusal } from "../shared/env-filter.js";
import { errorMessage, HubError } from "../shared/errors.js";
import {
  learnSecretValues,
  SECRET_REF,
  secretRefs,
} from "../shared/secrets.js";
import {
  loadOrMakeSecretsKey,
  loadSecretsKey,
  makeKeyLine,
  openSecret,
  sealSecret,
  secretsKeyFile,
  SECRETS_KEY_ENV,
  type SecretsKey,
} from "./secrets-key.js";

/** The largest value a secret may hold. */
export const MAX_SECRET_BYTES = 64 * 1024;
/** A secret's name is an environment variable's. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_NAME_LENGTH = 128;

/** What the secrets' operations need: the stores, the key's folder, the audit log's writer. */
export interface SecretsDeps {
  users: Pick<UserStore, "getUser">;
  secrets: SecretStore;
  stateDir: string;
  audit: AuditPort;
}

// A name an agent's environment may carry, or a clear refusal.
export function checkSecretName(name: string): void {
  const problem =
    name === ""
      ? "a secret's name may not be empty"
      : !ENV_NAME.test(name) || name.length > MAX_NAME_LENGTH
        ? `invalid secret name ${JSON.stringify(name)}: give an environment variable's name (letters, digits and _, not starting with a digit, at most ${MAX_NAME_LENGTH})`
        : name.startsWith("ACPHUB_")
          ? `invalid secret name ${name}: ACPHUB_* variables are acphub's own`
          : loaderRefusal([name])
            ? `invalid secret name ${name}: it changes which program runs or what code it loads (PATH, LD_*, NODE_OPTIONS, …), which no secret may set`
            : undefined;
  if (problem) throw new HubError("USAGE", problem);
}

// A value an environment can carry, at most 64 KiB.
export function checkSecretValue(name: string, value: string): void {
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes > MAX_SECRET_BYTES)
    throw new HubError(
      "USAGE",
      `the value of ${name} is ${bytes} bytes: a secret holds at most ${MAX_SECRET_BYTES} (64 KiB)`,
    );
  if (value === "")
    throw new HubError("USAGE", `the value of ${name} is empty`);
  if (value.includes("\0"))
    throw new HubError(
      "USAGE",
      `the value of ${name} holds a NUL byte, which no environment variable can`,
    );
}

// The secrets' owner must exist: a stored user, or the built-in admin (the serve token's holder).
async function requireOwner(d: SecretsDeps, user: string): Promise<void> {
  if (user === BUILTIN_ADMIN) return;
  if (!(await d.users.getUser(user)))
    throw new HubError("USAGE", `no user named ${JSON.stringify(user)}`);
}

/** The refusal when secrets are stored and no key can open them, with the line that makes one. */
export function missingKey(stateDir: string): HubError {
  const file = secretsKeyFile(stateDir);
  return new HubError(
    "CONFIG_INVALID",
    `secrets are stored in the ledger but there is no key to open them (no ${file}, no ${SECRETS_KEY_ENV}): put the key file back or set ${SECRETS_KEY_ENV}; or make a new key with the line below, after which the stored secrets must be set again:\n  ${makeKeyLine(file)}`,
  );
}

// The key to seal a new value with: the one the stored values were sealed with (made when none
// exists and nothing is stored), never a second key beside them.
async function sealingKey(d: SecretsDeps): Promise<SecretsKey> {
  const stored = await d.secrets.anySecret();
  const key = stored
    ? loadSecretsKey(d.stateDir)
    : loadOrMakeSecretsKey(d.stateDir);
  if (!key) throw missingKey(d.stateDir);
  if (stored) openSecret(key, stored.user, stored.name, stored.sealed);
  return key;
}

// Sets (or replaces) one of a user's secrets; audited by name, never by value.
export async function setUserSecret(
  d: SecretsDeps,
  actor: Actor,
  user: string,
  name: string,
  value: string,
): Promise<SecretInfo> {
  checkSecretName(name);
  checkSecretValue(name, value);
  await requireOwner(d, user);
  const key = await sealingKey(d);
  const updatedAt = Date.now();
  const sealed = sealSecret(key, user, name, value);
  learnSecretValues([value]);
  await d.secrets.putSecret({ user, name, sealed, updatedAt });
  await d.audit.record(actor, "secret.set", null, { user, name });
  return { name, updatedAt };
}

// A user's secrets' names and times (no key needed, no value shown).
export async function listUserSecrets(
  d: SecretsDeps,
  user: string,
): Promise<SecretInfo[]> {
  await requireOwner(d, user);
  return d.secrets.listSecrets(user);
}

// Removes one of a user's secrets (no key needed); an unknown name is refused.
export async function removeUserSecret(
  d: SecretsDeps,
  actor: Actor,
  user: string,
  name: string,
): Promise<void> {
  await requireOwner(d, user);
  if (!(await d.secrets.removeSecret(user, name)))
    throw new HubError(
      "USAGE",
      `${user} has no secret named ${JSON.stringify(name)}`,
    );
  await d.audit.record(actor, "secret.remove", null, { user, name });
}

/** The hub's port over these operations (the hub never holds the key). */
export function userSecretsPort(d: SecretsDeps): UserSecretsPort {
  return {
    set: (actor, user, name, value) =>
      setUserSecret(d, actor, user, name, value),
    list: (user) => listUserSecrets(d, user),
    remove: async (actor, user, name) => {
      await removeUserSecret(d, actor, user, name);
      return true;
    },
  };
}

// Serve refuses to start when secrets are stored and no key can open them; a key that did not
// seal them is said at once (each opening refuses it later). The values that open are learned
// by every masker from the start, so a value pasted anywhere is masked before its agent runs.
export async function checkSecretsKeyAtStart(
  d: Pick<SecretsDeps, "secrets" | "stateDir"> & {
    users: Pick<UserStore, "listUsers">;
  },
  warn: (message: string) => void,
): Promise<void> {
  const stored = await d.secrets.anySecret();
  if (!stored) return;
  const key = loadSecretsKey(d.stateDir);
  if (!key) throw missingKey(d.stateDir);
  const names = (await d.users.listUsers()).map((u) => u.name);
  try {
    for (const user of [BUILTIN_ADMIN, ...names])
      for (const s of await d.secrets.sealedSecrets(user))
        learnSecretValues([openSecret(key, user, s.name, s.sealed)]);
  } catch (error) {
    warn(errorMessage(error));
  }
}

/** The refusal of a session whose agent needs a secret its user lacks (at session/new). */
export function secretMissing(
  name: string,
  agent: string,
  user: string,
): HubError {
  return new HubError(
    "SECRET_MISSING",
    `agent ${agent} needs the secret ${name}, which ${user} has not set: set it with \`acphub users secrets set ${user} ${name}\` (the value on stdin) or in the web page's user menu (Secrets)`,
    { details: { secret: name, agent, user } },
  );
}

/**
 * The environment a user's agent gets from their secrets (contracts/agent-env.ts): each secret
 * by its name, then the config `env` with each `${secret:NAME}` replaced (the config's entries
 * win over a secret of the same name). Opened values are learned by every masker.
 */
export function agentEnvSource(
  d: Pick<SecretsDeps, "secrets" | "stateDir">,
): AgentEnvSource {
  return async (user, agent, configEnv) => {
    const rows = await d.secrets.sealedSecrets(user);
    const have = new Set(rows.map((r) => r.name));
    for (const name of secretRefs(configEnv))
      if (!have.has(name)) throw secretMissing(name, agent, user);
    if (rows.length === 0) return { ...configEnv };
    const key = loadSecretsKey(d.stateDir);
    if (!key) throw missingKey(d.stateDir);
    const values: Record<string, string> = {};
    for (const r of rows)
      values[r.name] = openSecret(key, user, r.name, r.sealed);
    learnSecretValues(Object.values(values));
    const out = { ...values };
    for (const [k, v] of Object.entries(configEnv))
      out[k] = v.replace(SECRET_REF, (_, n: string) => values[n] as string);
    return out;
  };
}
