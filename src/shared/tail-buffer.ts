// Keeps the last `maxBytes` of a byte stream (an agent's stderr, a command's output), dropping
// from the start, so memory stays bounded however much is written.
export class TailBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;
  /** True once anything was dropped. */
  truncated = false;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (chunk.length >= this.maxBytes) {
      this.truncated ||= chunk.length > this.maxBytes || this.bytes > 0;
      this.chunks =
        this.maxBytes > 0
          ? [Buffer.from(chunk.subarray(chunk.length - this.maxBytes))]
          : [];
      this.bytes = Math.min(chunk.length, this.maxBytes);
      return;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes > this.maxBytes) {
      const first = this.chunks[0] as Buffer;
      const excess = this.bytes - this.maxBytes;
      this.truncated = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.bytes -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.bytes -= excess;
      }
    }
  }

  // The kept bytes as text, starting at a UTF-8 character boundary when the start was cut.
  text(): string {
    const all = Buffer.concat(this.chunks);
    let start = 0;
    if (this.truncated)
      while (start < all.length && ((all[start] as number) & 0xc0) === 0x80)
        start++;
    return all.subarray(start).toString("utf8");
  }

  // For error messages: trimmed, marked with … when older output was dropped.
  summary(): string {
    const trimmed = this.text().trim();
    return this.truncated && trimmed ? `…${trimmed}` : trimmed;
  }
}
