// Secret masking by value: whole occurrences of secrets of 8 or more characters that are not
// numbers, inside strings only; masked JSON is always valid JSON with its numbers intact.
import { describe, expect, it } from "vitest";
import { SecretMasker } from "../../src/shared/secrets.js";

const masker = SecretMasker.fromEnv({
  MAX_THINKING_TOKENS: "100000",
  BIG_TOKEN_LIMIT: "12345678",
  SHORT_SECRET: "abc1234",
  OPENAI_API_KEY: "sk-live-Zq81xYw9",
  WEIRD_PASSWORD: 'pa"ss\\word!',
});

describe("SecretMasker", () => {
  it("keeps numbers and short values: they are settings, not secrets", () => {
    expect(masker.size).toBe(2);
    expect(masker.mask("1000000 tokens, 12345678, abc1234")).toBe(
      "1000000 tokens, 12345678, abc1234",
    );
  });

  it("masks whole occurrences only", () => {
    expect(
      masker.mask("key=sk-live-Zq81xYw9; (sk-live-Zq81xYw9) sk-live-Zq81xYw9x"),
    ).toBe("key=***; (***) sk-live-Zq81xYw9x");
    expect(masker.mask('say pa"ss\\word!now')).toBe("say ***now");
  });

  it("masks JSON by value: strings change, numbers and keys stay, the text stays valid", () => {
    const update = {
      sessionUpdate: "usage_update",
      used: 1000000,
      size: 12345678,
      note: 'key sk-live-Zq81xYw9 and pa"ss\\word!',
    };
    const json = JSON.stringify(update);
    const masked = masker.maskJson(json);
    expect(JSON.parse(masked)).toEqual({ ...update, note: "key *** and ***" });
    const plain = JSON.stringify({ used: 1000000, text: "1000000 tokens" });
    expect(masker.maskJson(plain)).toBe(plain);
  });

  it("finds any one of many secrets, regular-expression characters and shared prefixes included", () => {
    const values = Array.from({ length: 60 }, (_, i) =>
      i % 3 === 0
        ? `sk-live-${i}a(b)+c$`
        : i % 3 === 1
          ? `sk-live-${i}x.y*z`
          : `ghp_[${i}]\\q|w^`,
    );
    const many = new SecretMasker(values);
    expect(many.size).toBe(60);
    for (const v of [values[0]!, values[31]!, values[59]!]) {
      expect(many.mask(`a ${v} b`)).toBe("a *** b");
      const json = JSON.stringify({ text: `a ${v} b` });
      expect(JSON.parse(many.maskJson(json))).toEqual({ text: "a *** b" });
    }
    const clean = JSON.stringify({ text: "sk-live- ghp_ a(b)+c$" });
    expect(many.maskJson(clean)).toBe(clean);
    expect(many.mask("sk-live-0a(b)+c")).toBe("sk-live-0a(b)+c");
  });
});
