// The sealing of hub users' secrets (issue 36) and the environment a user's agent gets from
// them: AES-256-GCM bound to the user and the name (a row moved to another user or name does
// not open), a fresh IV per value, the AgentEnvSource's `${secret:NAME}` and its refusal of a
// missing secret, and maskers that learn each value as it is opened.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  loadOrMakeSecretsKey,
  openSecret,
  sealSecret,
} from "../../src/app/secrets-key.js";
import {
  agentEnvSource,
  setUserSecret,
  type SecretsDeps,
} from "../../src/app/user-secrets.js";
import { CLI_ACTOR } from "../../src/contracts/users.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { auditWriter } from "../../src/app/audit-log.js";
import { addUser } from "../../src/app/user-admin.js";
import { HubError } from "../../src/shared/errors.js";
import { SecretMasker } from "../../src/shared/secrets.js";
import { tempDir } from "../helpers/mock.js";

describe("sealing a secret", () => {
  const key = loadOrMakeSecretsKey(tempDir());

  it("opens for its own user and name only", () => {
    const sealed = sealSecret(key, "alice", "OPENAI_API_KEY", "sk-alice-1");
    expect(sealed).not.toContain("sk-alice-1");
    expect(openSecret(key, "alice", "OPENAI_API_KEY", sealed)).toBe(
      "sk-alice-1",
    );
    // The same row copied to bob, or renamed: refused, not opened.
    for (const [user, name] of [
      ["bob", "OPENAI_API_KEY"],
      ["alice", "ANTHROPIC_API_KEY"],
    ] as const)
      expect(() => openSecret(key, user, name, sealed)).toThrow(
        /does not open with the key file .*: it was altered or copied from another user's or name's row/,
      );
    // Altered ciphertext is refused too.
    const flipped =
      sealed.slice(0, -4) + (sealed.endsWith("AAAA") ? "BBBB" : "AAAA");
    expect(() => openSecret(key, "alice", "OPENAI_API_KEY", flipped)).toThrow(
      HubError,
    );
  });

  it("uses a fresh IV each time, and refuses another key by name", () => {
    const a = sealSecret(key, "alice", "K", "same-value-123");
    const b = sealSecret(key, "alice", "K", "same-value-123");
    expect(a).not.toBe(b);
    const other = loadOrMakeSecretsKey(tempDir());
    expect(() => openSecret(other, "alice", "K", a)).toThrow(
      /secret K of alice was sealed with another key than the key file .*secrets\.key: nothing was decrypted or changed/,
    );
  });
});

describe("agentEnvSource", () => {
  let ledger: SqliteLedger;
  let deps: SecretsDeps;
  beforeEach(async () => {
    const stateDir = tempDir();
    ledger = new SqliteLedger(join(stateDir, "ledger.db"));
    for (const name of ["alice", "bob"])
      await addUser(ledger.users, name, "member");
    deps = {
      users: ledger.users,
      secrets: ledger.secrets,
      stateDir,
      audit: auditWriter(ledger.users),
    };
  });
  afterEach(() => ledger.close());

  it("gives a user's secrets by name and fills ${secret:NAME}, another user's never", async () => {
    await setUserSecret(deps, CLI_ACTOR, "alice", "MY_KEY", "sk-alice-value-1");
    await setUserSecret(
      deps,
      CLI_ACTOR,
      "alice",
      "GH_TOKEN",
      "ghp-alice-value-2",
    );
    await setUserSecret(deps, CLI_ACTOR, "bob", "MY_KEY", "sk-bob-value-3");
    const source = agentEnvSource(deps);
    const env = {
      ANTHROPIC_API_KEY: "${secret:MY_KEY}",
      MODE: "x-${secret:GH_TOKEN}-y",
      PLAIN: "p",
    };
    expect(await source("alice", "claude", env)).toEqual({
      MY_KEY: "sk-alice-value-1",
      GH_TOKEN: "ghp-alice-value-2",
      ANTHROPIC_API_KEY: "sk-alice-value-1",
      MODE: "x-ghp-alice-value-2-y",
      PLAIN: "p",
    });
    expect(
      await source("bob", "claude", { ANTHROPIC_API_KEY: "${secret:MY_KEY}" }),
    ).toEqual({
      MY_KEY: "sk-bob-value-3",
      ANTHROPIC_API_KEY: "sk-bob-value-3",
    });
    // Every masker made from the environment now masks the opened values.
    const masker = SecretMasker.fromEnv({});
    expect(masker.mask("key sk-bob-value-3 and ghp-alice-value-2")).toBe(
      "key *** and ***",
    );
  });

  it("refuses a session whose user lacks a named secret, saying which and how to set it", async () => {
    await setUserSecret(deps, CLI_ACTOR, "alice", "OTHER", "sk-other-value-1");
    const source = agentEnvSource(deps);
    const refusal = source("bob", "claude", {
      ANTHROPIC_API_KEY: "${secret:ANTHROPIC_API_KEY}",
    });
    await expect(refusal).rejects.toMatchObject({
      code: "SECRET_MISSING",
      message:
        "agent claude needs the secret ANTHROPIC_API_KEY, which bob has not set: set it with `acphub users secrets set bob ANTHROPIC_API_KEY` (the value on stdin) or in the web page's user menu (Secrets)",
    });
    // No secrets and no references: nothing to add, no key needed.
    expect(await source("bob", "claude", { A: "b" })).toEqual({ A: "b" });
  });
});
