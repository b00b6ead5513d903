// Keeps the last `maxBytes` of a byte stream (an agent's stderr), for error messages.
export class TailBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private dropped = false;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes > this.maxBytes && this.chunks.length > 0) {
      const first = this.chunks[0] as Buffer;
      const excess = this.bytes - this.maxBytes;
      this.dropped = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.bytes -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.bytes -= excess;
      }
    }
  }

  // The kept text, trimmed, with a marker when older output was dropped.
  text(): string {
    const body = Buffer.concat(this.chunks)
      .toString("utf8")
      .replace(/^\uFFFD+/, "");
    const trimmed = body.trim();
    return this.dropped && trimmed ? `…${trimmed}` : trimmed;
  }
}
