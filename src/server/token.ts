// The bearer token every request to `acphub serve` must carry: from --token-file, else
// ACPHUB_TOKEN, else the one generated on first start (32 random bytes, base64url, mode 0600
// in the state folder). Compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { HubError } from "../shared/errors.js";

export interface TokenSource {
  stateDir: string;
  tokenFile?: string;
  env?: Record<string, string | undefined>;
}

export interface LoadedToken {
  token: string;
  /** Where it came from, for the start-up message. */
  source: string;
}

/** The default token file in the state folder. */
export function defaultTokenFile(stateDir: string): string {
  return join(stateDir, "serve-token");
}

// Reads the token from the first place that has one, generating the state folder's on first use.
export function loadToken(s: TokenSource): LoadedToken {
  if (s.tokenFile)
    return { token: readToken(s.tokenFile), source: s.tokenFile };
  const fromEnv = (s.env ?? process.env)["ACPHUB_TOKEN"];
  if (fromEnv !== undefined) {
    checkToken(fromEnv.trim(), "ACPHUB_TOKEN");
    return { token: fromEnv.trim(), source: "ACPHUB_TOKEN" };
  }
  const file = defaultTokenFile(s.stateDir);
  if (!existsSync(file)) {
    mkdirSync(s.stateDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, `${randomBytes(32).toString("base64url")}\n`, {
      mode: 0o600,
      flag: "wx",
    });
  }
  chmodSync(file, 0o600);
  return { token: readToken(file), source: file };
}

function readToken(file: string): string {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new HubError("CONFIG_INVALID", `cannot read the token file ${file}`, {
      cause: error,
    });
  }
  const token = text.trim();
  checkToken(token, file);
  return token;
}

function checkToken(token: string, where: string): void {
  if (token.length < 16 || /\s/.test(token))
    throw new HubError(
      "CONFIG_INVALID",
      `the token in ${where} must be at least 16 characters without spaces`,
    );
}

// Constant-time comparison (hashing first makes the lengths equal).
export function tokenMatches(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}
