// The agent-side framing bound, checked deterministically: an oversized line stops reading as
// soon as it passes the bound, instead of buffering until a newline arrives.
import { PassThrough } from "node:stream";
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { ndjsonStream } from "../../src/protocol/ndjson.js";

describe("ndjsonStream", () => {
  it("an oversized line fails once the bound is passed, and nothing more is read", async () => {
    const input = new PassThrough();
    const limit = 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, "x");
    const errors: unknown[] = [];
    const stream = ndjsonStream(input, new PassThrough(), {
      maxLineBytes: limit,
      onError: (error) => errors.push(error),
    });
    const read = stream.readable
      .getReader()
      .read()
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    let written = 0;
    // A 50 MiB line without a newline, sent one chunk per turn of the event loop.
    while (errors.length === 0 && written < 50 * limit) {
      input.write(chunk);
      written += chunk.length;
      await nextTurn();
    }
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: "LIMIT_EXCEEDED" });
    expect(written).toBeLessThanOrEqual(limit + chunk.length);
    expect(input.listenerCount("data")).toBe(0);
    expect(await read).toMatchObject({
      message: expect.stringMatching(/more than 1048576 bytes/),
    });
  });
});
