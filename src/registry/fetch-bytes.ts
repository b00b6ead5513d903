// Reads a registry's files (registry.json, archives) from http(s) or file URLs, bounded in size,
// with the errors a user can act on (which URL, what went wrong).
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { HubError } from "../shared/errors.js";

// The SHA-256 of some bytes, as lowercase hex.
export function sha256(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function tooBig(what: string, url: string, maxBytes: number): HubError {
  return new HubError(
    "INSTALL_REFUSED",
    `${what} ${url} is larger than ${maxBytes} bytes`,
    {
      details: { url, maxBytes },
    },
  );
}

// Reads a file: URL (a private registry on a shared disk).
async function readFileUrl(
  url: string,
  maxBytes: number,
  what: string,
): Promise<Buffer> {
  const path = fileURLToPath(url);
  try {
    if ((await stat(path)).size > maxBytes) throw tooBig(what, url, maxBytes);
    return await readFile(path);
  } catch (error) {
    if (error instanceof HubError) throw error;
    throw new HubError(
      "UNSUPPORTED",
      `cannot read ${what} ${url}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

// The body of `url` (http, https or file), at most `maxBytes`.
export async function fetchBytes(
  url: string,
  maxBytes: number,
  signal: AbortSignal,
  what: string,
): Promise<Buffer> {
  if (url.startsWith("file:")) return readFileUrl(url, maxBytes, what);
  if (!/^https?:\/\//.test(url))
    throw new HubError("USAGE", `${what} URL must be http(s) or file: ${url}`);
  let response: Response;
  try {
    response = await fetch(url, { signal, redirect: "follow" });
  } catch (error) {
    const inner = (error as { cause?: { code?: string; message?: string } })
      .cause;
    const cause = inner?.code ?? inner?.message;
    throw new HubError(
      signal.aborted ? "TIMEOUT" : "UNSUPPORTED",
      `cannot reach ${what} ${url}: ${cause ?? (error as Error).message}`,
      { cause: error, retryable: true },
    );
  }
  if (!response.ok || !response.body)
    throw new HubError(
      "UNSUPPORTED",
      `${what} ${url} answered HTTP ${response.status}`,
      {
        details: { url, status: response.status },
      },
    );
  return readBody(response.body, maxBytes, () => tooBig(what, url, maxBytes));
}

// A response body, refused (`tooBig()`) once it passes maxBytes.
async function readBody(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  tooLarge: () => HubError,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const reader = body.getReader();
  // Ends with the body; bounded by maxBytes.
  for (let total = 0; ;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}
