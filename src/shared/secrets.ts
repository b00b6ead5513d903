// Masks the values of secrets acphub knows of (API keys, tokens, passwords in its own
// environment) as `***` in logs, audit events and anything acphub writes to disk.

const SECRET_NAME =
  /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|AUTH)/i;
const MIN_SECRET_LENGTH = 6;

export class SecretMasker {
  private readonly secrets: string[];
  private escapedCache: string[] | undefined;

  constructor(values: Iterable<string>) {
    this.secrets = [...new Set(values)]
      .filter((v) => v.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length);
  }

  // The secrets in an environment: values of variables whose names look like secrets.
  static fromEnv(env: Record<string, string | undefined>): SecretMasker {
    const values = Object.entries(env)
      .filter(([name, value]) => value !== undefined && SECRET_NAME.test(name))
      .map(([, value]) => value as string);
    return new SecretMasker(values);
  }

  get size(): number {
    return this.secrets.length;
  }

  mask(text: string): string {
    let out = text;
    for (const secret of this.secrets)
      if (out.includes(secret)) out = out.split(secret).join("***");
    return out;
  }

  // Masks secrets inside serialized JSON, where they appear JSON-escaped: the text stays valid
  // JSON (only the inside of strings changes) and is never parsed.
  maskJson(json: string): string {
    let out = json;
    for (const secret of this.escaped)
      if (out.includes(secret)) out = out.split(secret).join("***");
    return out;
  }

  private get escaped(): string[] {
    return (this.escapedCache ??= this.secrets.map((s) =>
      JSON.stringify(s).slice(1, -1),
    ));
  }

  // Masks every string inside a JSON-like value, keeping its structure.
  maskValue<T>(value: T): T {
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
