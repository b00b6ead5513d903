// One socket write per tick instead of one per message. The SDK's WebSocket pump and its
// Streamable HTTP streams hand each message to the socket on its own (a WebSocket frame, an SSE
// event), and a committed ledger batch releases hundreds at once: uncoalesced, each becomes its
// own writev system call. The first write of a tick corks the socket; the tick's end uncorks it,
// so what was written in that tick leaves in one call, in order. Nothing waits longer than the
// current tick, and backpressure is unchanged (corked bytes count in the socket's buffer).
import type { Duplex } from "node:stream";

const COALESCED = Symbol("acphub.coalesced");

type Coalesced = Duplex & { [COALESCED]?: true };

/** Makes every write to `socket` within one tick leave in one system call. Idempotent. */
export function coalesceWrites(socket: Duplex): void {
  const s = socket as Coalesced;
  if (s[COALESCED]) return;
  s[COALESCED] = true;
  const write = s.write;
  let corked = false;
  const uncork = () => {
    corked = false;
    if (!s.destroyed) s.uncork();
  };
  s.write = function (this: Duplex, ...args: unknown[]): boolean {
    if (!corked && !s.destroyed) {
      corked = true;
      s.cork();
      process.nextTick(uncork);
    }
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as Duplex["write"];
}
