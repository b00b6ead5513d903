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
});
