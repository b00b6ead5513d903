// Newline-delimited JSON over byte streams, bounded per line. Unlike the SDK's ndJsonStream it
// never answers the peer's garbage with an error frame: non-JSON lines are reported to the
// caller (agents print banners), and an oversized line stops the stream with a typed error
// after discarding, not buffering, the excess. An interceptor can take messages (raw
// session/update notifications) before the SDK's validating handlers see them.
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import { HubError } from "../shared/errors.js";
import { readChunkLine } from "./chunk-line.js";

export interface NdjsonOptions {
  maxLineBytes: number;
  /** Called for each line that is not a JSON object. */
  onNoise?: (line: string) => void;
  /** Sees each message first; returning true consumes it (it never reaches the SDK). */
  intercept?: (message: AnyMessage) => boolean;
  /** Sees every frame, read ("in") or written ("out"), for debug logging. */
  onFrame?: (direction: "in" | "out", message: AnyMessage) => void;
  /** Called once when reading stops for good (an oversized line, a stream error). */
  onError?: (error: unknown) => void;
}

const NEWLINE = 0x0a;

export class LineSplitter {
  private parts: Buffer[] = [];
  private bytes = 0;

  constructor(private readonly maxLineBytes: number) {}

  // Yields complete lines; throws LIMIT_EXCEEDED as soon as a line passes the bound.
  *push(chunk: Buffer): Generator<Buffer> {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      const piece = chunk.subarray(start, end === -1 ? chunk.length : end);
      this.bytes += piece.length;
      if (this.bytes > this.maxLineBytes) {
        this.parts = [];
        throw new HubError(
          "LIMIT_EXCEEDED",
          `a line of more than ${this.maxLineBytes} bytes arrived (limit maxMessageBytes)`,
          { details: { maxLineBytes: this.maxLineBytes } },
        );
      }
      if (piece.length > 0) this.parts.push(piece);
      if (end === -1) return;
      const line =
        this.parts.length === 1
          ? (this.parts[0] as Buffer)
          : Buffer.concat(this.parts);
      this.parts = [];
      this.bytes = 0;
      yield line;
      start = end + 1;
    }
  }

  flush(): Buffer | undefined {
    if (this.bytes === 0) return undefined;
    const line = Buffer.concat(this.parts);
    this.parts = [];
    this.bytes = 0;
    return line;
  }
}

// Parses one line; returns undefined for blank lines and a string for noise. A text chunk's
// session/update, a streaming agent's nearly every line, is read without JSON.parse (chunk-line.ts).
function parseLine(line: Buffer): AnyMessage | string | undefined {
  const text = line.toString("utf8").trim();
  if (text === "") return undefined;
  const chunk = readChunkLine(text);
  if (chunk) return { jsonrpc: "2.0", method: "session/update", params: chunk };
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      return value as AnyMessage;
    }
  } catch {
    // fall through: noise
  }
  return text;
}

// Builds an SDK Stream over a Node readable/writable pair (a child's stdout/stdin).
export function ndjsonStream(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  options: NdjsonOptions,
): Stream {
  const splitter = new LineSplitter(options.maxLineBytes);
  const emit = (
    controller: ReadableStreamDefaultController<AnyMessage>,
    line: Buffer,
  ) => {
    const parsed = parseLine(line);
    if (parsed === undefined) return;
    if (typeof parsed === "string") options.onNoise?.(parsed);
    else {
      options.onFrame?.("in", parsed);
      if (!options.intercept?.(parsed)) controller.enqueue(parsed);
    }
  };
  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      input.on("data", (chunk: Buffer) => {
        try {
          for (const line of splitter.push(chunk)) emit(controller, line);
        } catch (error) {
          input.removeAllListeners("data");
          options.onError?.(error);
          controller.error(error);
        }
      });
      input.on("end", () => {
        const last = splitter.flush();
        try {
          if (last) emit(controller, last);
          controller.close();
        } catch {
          // already errored or closed
        }
      });
      input.on("error", (error) => {
        options.onError?.(error);
        try {
          controller.error(error);
        } catch {
          // already closed
        }
      });
    },
  });
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      options.onFrame?.("out", message);
      return new Promise<void>((resolve, reject) => {
        output.write(JSON.stringify(message) + "\n", (error) => {
          if (error) reject(error);
          else resolve();
        });
      });
    },
  });
  return { readable, writable };
}
