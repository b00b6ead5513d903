// What `acphub users secrets set|list|remove` do beyond parsing and printing (issue 36): the
// ledger opened for one command, the value read from stdin or a file (never echoed), and the
// operations of app/user-secrets.ts as the local operator (audited as the built-in admin).
import { readFileSync } from "node:fs";
import type { AppContext } from "../config/context.js";
import { CLI_ACTOR } from "../contracts/users.js";
import { secretStoreOf, userStoreOf } from "../ledger/open.js";
import { HubError } from "../shared/errors.js";
import { auditWriter } from "./audit-log.js";
import { withLedger } from "./sessions.js";
import {
  checkSecretName,
  listUserSecrets,
  MAX_SECRET_BYTES,
  removeUserSecret,
  setUserSecret,
  type SecretsDeps,
} from "./user-secrets.js";

// Opens the ledger, runs `body` over its users' secrets, closes it.
function withSecrets<T>(
  ctx: AppContext,
  body: (d: SecretsDeps) => Promise<T>,
): Promise<T> {
  return withLedger(ctx, (ledger) => {
    const users = userStoreOf(ledger);
    const secrets = secretStoreOf(ledger);
    const audit = auditWriter(users);
    return body({ users, secrets, stateDir: ctx.paths.stateDir, audit });
  });
}

// Reads all of stdin, stopping one byte past the limit (the check then refuses it).
async function readStdin(): Promise<string> {
  if (process.stdin.isTTY)
    throw new HubError(
      "USAGE",
      'give the value on stdin (e.g. `printf %s "$VALUE" | acphub users secrets set …`) or with --from-file FILE; it is not read from a terminal, where it would show',
    );
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    bytes += chunk.length;
    if (bytes > MAX_SECRET_BYTES + 2) break;
  }
  return Buffer.concat(chunks).toString("utf8");
}

// The value given: the file's or stdin's text, without one final line end.
async function valueGiven(fromFile: string | undefined): Promise<string> {
  let text: string;
  try {
    text =
      fromFile === undefined
        ? await readStdin()
        : readFileSync(fromFile, "utf8");
  } catch (error) {
    if (error instanceof HubError) throw error;
    throw new HubError(
      "USAGE",
      `cannot read ${fromFile ?? "stdin"}: ${(error as Error).message}`,
    );
  }
  return text.replace(/\r?\n$/, "");
}

/** `acphub users secrets set USER NAME`: the value from stdin or `fromFile`. */
export async function setSecretCommand(
  ctx: AppContext,
  user: string,
  name: string,
  fromFile: string | undefined,
): Promise<{ user: string; name: string; updatedAt: string }> {
  checkSecretName(name);
  const value = await valueGiven(fromFile);
  const set = await withSecrets(ctx, (d) =>
    setUserSecret(d, CLI_ACTOR, user, name, value),
  );
  return { user, name, updatedAt: new Date(set.updatedAt).toISOString() };
}

/** `acphub users secrets list USER`: names and times, never values. */
export function listSecretsCommand(
  ctx: AppContext,
  user: string,
): Promise<{ name: string; updatedAt: string }[]> {
  return withSecrets(ctx, async (d) =>
    (await listUserSecrets(d, user)).map((s) => ({
      name: s.name,
      updatedAt: new Date(s.updatedAt).toISOString(),
    })),
  );
}

/** `acphub users secrets remove USER NAME`. */
export function removeSecretCommand(
  ctx: AppContext,
  user: string,
  name: string,
): Promise<void> {
  return withSecrets(ctx, (d) => removeUserSecret(d, CLI_ACTOR, user, name));
}
