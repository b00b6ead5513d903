// Keeps the last `limit` bytes of a command's output, dropping from the start and cutting at
// a UTF-8 character boundary, so memory stays bounded however much a command prints.
export class OutputBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (this.limit === 0) {
      this.truncated ||= chunk.length > 0;
      return;
    }
    if (chunk.length >= this.limit) {
      this.chunks = [Buffer.from(chunk.subarray(chunk.length - this.limit))];
      this.bytes = this.limit;
      this.truncated = true;
      return;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes > this.limit) {
      const first = this.chunks[0] as Buffer;
      const excess = this.bytes - this.limit;
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

  // The kept bytes as text, starting at a character boundary (continuation bytes skipped).
  text(): string {
    const all = Buffer.concat(this.chunks);
    let start = 0;
    if (this.truncated)
      while (start < all.length && ((all[start] as number) & 0xc0) === 0x80)
        start++;
    return all.subarray(start).toString("utf8");
  }
}
