// The one ordered output toward an editor: frames acphub serializes itself (relayed updates,
// replays: stored text sent as it is) and the SDK's own messages (responses, requests) go out in
// the order they were written, coalesced into one write per tick.
export class FrameWriter {
  private chunks: string[] = [];
  private scheduled = false;
  private flushing: Promise<void> = Promise.resolve();
  private readonly decoder = new TextDecoder();
  private failure: unknown;

  constructor(private readonly out: (bytes: Uint8Array) => Promise<void>) {}

  /** Queues text made of whole newline-terminated frames. */
  write(text: string): void {
    this.chunks.push(text);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Queues bytes from the SDK's own framing (whole lines). */
  writeBytes(bytes: Uint8Array): Promise<void> {
    this.write(this.decoder.decode(bytes, { stream: true }));
    return this.drained();
  }

  /** Resolves once everything queued so far has been handed to the output; rejects if it failed. */
  async drained(): Promise<void> {
    if (this.scheduled) this.flush();
    await this.flushing;
    if (this.failure !== undefined) throw this.failure;
  }

  // Writes what is queued as one chunk, after the previous chunk was taken.
  private flush(): void {
    this.scheduled = false;
    if (this.chunks.length === 0) return;
    const text = this.chunks.join("");
    this.chunks = [];
    this.flushing = this.flushing.then(() =>
      this.out(Buffer.from(text)).catch((error: unknown) => {
        this.failure ??= error;
      }),
    );
  }
}
