// What making a relayed update's WebSocket frame costs the hub, per frame, in a loop (no socket):
// the frame's text made and encoded into its own buffer then copied into the socket's gather
// buffer (textFrame(stampedText(…)), how the hub did it before), against the frame written from
// its parts straight into the gather buffer (writeStampedFrame: the session's head bytes, the
// stored text, the seq's tail). 1,000 chunk-sized stored updates, alternated rounds, medians.
// Usage: npm run build && node bench/stamped-frames.mjs
import { loadavg } from "node:os";
import {
  frameHeadBytes,
  stampTail,
  stampedText,
} from "../dist/engine/wire-updates.js";
import {
  headerSize,
  stampedPayload,
  textFrame,
  writeStampedFrame,
} from "../dist/server/ws-frame.js";
import { median } from "./common.mjs";

const FRAMES = 300_000;
const sessionId = "hub-26f38806-68f4-4f51-b2bb-11e48fbddbfa";
const texts = Array.from({ length: 1000 }, (_, i) =>
  JSON.stringify({
    update: {
      sessionUpdate: "agent_message_chunk",
      content: {
        type: "text",
        text: `part ${i} of a reply, about as long as a chunk is`,
      },
      messageId: `m${i % 7}`,
    },
  }),
);
const gather = Buffer.allocUnsafe(1 << 20);
let used = 0;

const ways = {
  "frame text, encoded, copied": (update) => {
    const frame = textFrame(stampedText(update));
    if (used + frame.length > gather.length) used = 0;
    frame.copy(gather, used);
    used += frame.length;
  },
  "written from its parts": (update) => {
    const head = frameHeadBytes(update.sessionId);
    const tail = stampTail(update.seq);
    const payload = stampedPayload(head, Buffer.byteLength(update.text), tail);
    if (used + headerSize(payload) + payload > gather.length) used = 0;
    used = writeStampedFrame(gather, used, payload, head, update.text, tail);
  },
};

const times = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
for (let round = 0; round < 8; round++)
  for (const [name, write] of Object.entries(ways)) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < FRAMES; i++)
      write({ sessionId, text: texts[i % texts.length], seq: i });
    if (round >= 2)
      times[name].push(Number(process.hrtime.bigint() - start) / FRAMES);
  }
for (const [name, t] of Object.entries(times))
  console.log(
    `${name.padEnd(28)}: ${median(t).toFixed(0)} ns a frame (median of ${t.length})`,
  );
console.log(`(load ${loadavg()[0].toFixed(1)})`);
