// Masks the values of secrets acphub knows of (API keys, tokens, passwords in its own
// environment) as `***` in logs, audit events and anything acphub writes to disk. It works on
// values: inside strings only, and only on whole occurrences of a secret, so a number or a
// longer word that happens to contain one is left alone and stored JSON stays valid.

import { userinfoOf } from "./env-filter.js";
import { HubError } from "./errors.js";

const SECRET_NAME =
  /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|AUTH)/i;
/** Shorter values (and numbers such as MAX_THINKING_TOKENS=100000) are settings, not secrets. */
export const MIN_SECRET_LENGTH = 8;
const NUMERIC = /^[\d\s.,_+-]*$/;
const WORD = /[A-Za-z0-9_]/;

// True when a value can be a secret worth masking.
export function maskable(value: string): boolean {
  return value.length >= MIN_SECRET_LENGTH && !NUMERIC.test(value);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// Any of the texts, anywhere (no flags: `test` keeps no state); undefined for none.
function anyOf(texts: string[]): RegExp | undefined {
  return texts.length
    ? new RegExp(texts.map(escapeRegExp).join("|"))
    : undefined;
}

// One secret as a whole occurrence: not continued by a letter or digit on a side where the
// secret itself begins or ends with one.
function wholePattern(secret: string): string {
  const before = WORD.test(secret[0]!) ? "(?<![A-Za-z0-9_])" : "";
  const after = WORD.test(secret.at(-1)!) ? "(?![A-Za-z0-9_])" : "";
  return `${before}${escapeRegExp(secret)}${after}`;
}

// The `user:password` of a URL-like value and its password, as written and decoded.
function urlCredentials(value: string): string[] {
  const info = value.includes("://") ? userinfoOf(value) : undefined;
  if (!info) return [];
  const colon = info.indexOf(":");
  const password = colon < 0 ? "" : info.slice(colon + 1);
  const out = [info, password];
  try {
    out.push(decodeURIComponent(password), decodeURIComponent(info));
  } catch {
    // not percent-encoded: the spellings above are all there is
  }
  return out.filter((s) => s !== "");
}

/** Secret values this process learned after start (hub users' secrets as they are decrypted). */
const learned = new Set<string>();
/** Grows with each new learned value: a learning masker rebuilds when it sees a new one. */
let learnedGeneration = 0;

// Every masker made from the environment masks these values too, from now on (issue 36: a
// user's secrets, decrypted into their agent's environment, are masked in every log and span).
export function learnSecretValues(values: Iterable<string>): void {
  for (const v of values)
    if (maskable(v) && !learned.has(v)) {
      learned.add(v);
      learnedGeneration++;
    }
}

export class SecretMasker {
  private secrets: string[] = [];
  /** Every secret's whole occurrences, longest first. */
  private pattern: RegExp | undefined;
  /**
   * Whether a text holds a secret, as it is (`plain`) or as it appears inside a JSON string
   * (`escaped`): one regular expression each, so that the test of a relayed update costs about
   * the same with fifty secrets as with one (a scan per secret grew with the users' secrets).
   */
  private plain: RegExp | undefined;
  private escaped: RegExp | undefined;
  /** The learned values' generation this masker was built with; -1: it does not learn. */
  private seen = -1;
  private readonly values: string[];

  constructor(values: Iterable<string>, learns = false) {
    this.values = [...values];
    this.build(learns ? learnedGeneration : -1);
  }

  // The patterns for the given values (and, for a learning masker, the learned ones).
  private build(generation: number): void {
    this.seen = generation;
    const all = generation < 0 ? this.values : [...this.values, ...learned];
    this.secrets = [...new Set(all)]
      .filter(maskable)
      .sort((a, b) => b.length - a.length);
    this.pattern = this.secrets.length
      ? new RegExp(this.secrets.map(wholePattern).join("|"), "g")
      : undefined;
    this.plain = anyOf(this.secrets);
    this.escaped = anyOf(
      this.secrets.map((s) => JSON.stringify(s).slice(1, -1)),
    );
  }

  // Rebuilds a learning masker once values were learned since it last built.
  private fresh(): void {
    if (this.seen >= 0 && this.seen !== learnedGeneration)
      this.build(learnedGeneration);
  }

  // The secrets in an environment: values of variables whose names look like secrets.
  // Also the credentials inside any URL-valued variable (`HTTPS_PROXY=http://u:p@proxy`).
  static fromEnv(env: Record<string, string | undefined>): SecretMasker {
    const values = Object.entries(env)
      .filter(([name, value]) => value !== undefined && SECRET_NAME.test(name))
      .map(([, value]) => value as string);
    const inUrls = Object.values(env).flatMap((v) =>
      v === undefined ? [] : urlCredentials(v),
    );
    return new SecretMasker([...values, ...inUrls], true);
  }

  get size(): number {
    this.fresh();
    return this.secrets.length;
  }

  /** Replaces whole occurrences of a secret in one text (a value, a log line, a command). */
  mask(text: string): string {
    this.fresh();
    if (!this.pattern || !this.plain!.test(text)) return text;
    return text.replace(this.pattern, "***");
  }

  /**
   * Masks serialized JSON by its values: text holding no secret comes back as it is (the same
   * string, no parse); otherwise it is parsed, its strings masked and serialized again, so the
   * result is always valid JSON with numbers and keys untouched.
   */
  maskJson(json: string): string {
    this.fresh();
    if (!this.escaped?.test(json)) return json;
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      return this.mask(json);
    }
    return JSON.stringify(this.walk(value));
  }

  // Masks every string inside a JSON-like value, keeping its structure.
  maskValue<T>(value: T): T {
    this.fresh();
    if (this.secrets.length === 0) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === "string") return this.mask(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, this.walk(v)]),
      );
    }
    return value;
  }
}

/** `${secret:NAME}` in an agent's config `env`: its session owner's secret (issue 36). */
export const SECRET_REF = /\$\{secret:([^}]*)\}/g;

// The names an agent's config `env` takes from its user's secrets.
export function secretRefs(env: Record<string, string>): string[] {
  const names = Object.values(env).flatMap((v) =>
    [...v.matchAll(SECRET_REF)].map((m) => m[1] as string),
  );
  return [...new Set(names)];
}

// The refusal of an agent about to start with a `${secret:NAME}` nobody resolved: secrets are
// a hub user's, for their own agents; a process of no user (run, chat, acp, flow) has none.
export function unresolvedSecret(agent: string, name: string): HubError {
  return new HubError(
    "SECRET_MISSING",
    `agent ${agent}'s config env names \${secret:${name}}, which only a hub user's agent gets (acphub serve with users: docs/cli.md, "Secrets in an agent's env"); here, give the value in the agent's env or pass it from acphub's environment with passEnv`,
    { details: { secret: name, agent } },
  );
}
