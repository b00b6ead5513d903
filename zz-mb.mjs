import { textFrame } from "./dist/server/ws-frame.js";
import { stampedFrame, frameHead } from "./dist/engine/wire-updates.js";
const sid = "hub-26f38806-68f4-4f51-b2bb-11e48fbddbfa";
const texts = Array.from({ length: 1000 }, (_, i) => `{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"part ${i} of a reply that goes on a little while, like a real chunk"},"messageId":"m${i % 7}"}}`);
let gather = Buffer.allocUnsafe(1 << 20); let used = 0;
const headBuf = Buffer.from(frameHead(sid));
function current(text, seq) {
  const frame = textFrame(stampedFrame(sid, text, seq, false));
  if (used + frame.length > gather.length) used = 0;
  frame.copy(gather, used); used += frame.length;
}
function direct(text, seq) {
  const tail = `,"_meta":{"acphub":{"seq":${seq}}}}}`;
  const tb = Buffer.byteLength(text);
  const length = headBuf.length - 1 + tb - 1 + tail.length;
  const hl = length < 126 ? 2 : length < 0x10000 ? 4 : 10;
  if (used + hl + length > gather.length) used = 0;
  const g = gather; let p = used;
  g[p] = 0x81;
  if (hl === 2) g[p + 1] = length; else if (hl === 4) { g[p + 1] = 126; g.writeUInt16BE(length, p + 2); }
  p += hl;
  headBuf.copy(g, p); p += headBuf.length - 1;
  g.utf8Write(text, p); g[p] = 0x2c; p += tb - 1;
  g.latin1Write(tail, p); p += tail.length;
  used = p;
}
// check equality
{ used = 0; current(texts[3], 77); const a = Buffer.from(gather.subarray(0, used)); used = 0; direct(texts[3], 77); const b = gather.subarray(0, used); if (!a.equals(b)) throw new Error("differ\n" + a + "\n" + b); }
for (let round = 0; round < 6; round++) {
  for (const [name, f] of [["current", current], ["direct", direct]]) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 300000; i++) f(texts[i % 1000], i);
    const ns = Number(process.hrtime.bigint() - t0) / 300000;
    if (round > 1) console.log(name, ns.toFixed(0), "ns");
  }
}
