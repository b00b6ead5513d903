// Compaction of a finished turn: a streamed reply arrives as hundreds of small chunks; once the
// turn is over, runs of consecutive text chunks that differ only in their text become one event
// with the text concatenated. Everything else (tool calls, plans, chunks whose messageId, _meta
// or annotations differ) keeps its place, so a replay shows the same history. A row merged
// earlier in the turn counts as the chunks its chunk list names, so merging it again with the
// chunks that follow gives one event per message, as merging them all at once would.
import type { StoredEvent } from "../engine/ledger-port.js";
import { CHUNK_KINDS, holds, textChunkHead } from "../protocol/chunk-line.js";
import {
  chunkList,
  readStored,
  withChunks,
  type RunChunks,
} from "./run-cut.js";

/** How acphub serializes a text chunk as agents send it: read without parsing. */
const FAST_HEADS = CHUNK_KINDS.map(
  (kind) => `{"update":${textChunkHead(kind)}`,
);
/** Each fast head's identity, made once: chunks compare the same string, not a new one each. */
const FAST_IDS = FAST_HEADS.map((head) => `f${head}`);

/** At most this many chunks become one event: bounds the chunk list a merged event keeps. */
export const MAX_RUN_CHUNKS = 1000;

/** One merged run: events fromSeq..lastSeq become `text`, kept at lastSeq. */
export interface MergedRun {
  fromSeq: number;
  lastSeq: number;
  text: string;
  /** Where the joined text starts in `text`, and each chunk's (escaped) length. */
  bodyStart: number;
  lengths: number[];
}

// A text chunk split around its text: merged with neighbours whose head and tail are the same.
interface Chunk {
  seq: number;
  head: string;
  body: string;
  tail: string;
  /** A merged row's chunk list, when it matches the body: the row then stands for its chunks.
   *  Always present (undefined when none), and set only as the chunk is made: chunks without it
   *  had another shape, and a chunk given one later made the field writable, and V8 threw the
   *  compiled planner away each time (issue 39, fifteenth round). */
  readonly list: RunChunks | undefined;
}

// How many of the original chunks `chunk` stands for.
const chunkCount = (chunk: Chunk) => chunk.list?.lengths.length ?? 1;

// Where the JSON string starting at `from` ends (its closing quote), or -1.
function stringEnd(text: string, from: number): number {
  for (
    let i = text.indexOf('"', from);
    i !== -1;
    i = text.indexOf('"', i + 1)
  ) {
    let backslashes = 0;
    for (let j = i - 1; text.charCodeAt(j) === 92; j--) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
  return -1;
}

// The fast reading: the common key order, text sliced out as escaped JSON (which concatenates).
function fastChunk(
  seq: number,
  text: string,
  list: RunChunks | undefined,
): Chunk | undefined {
  for (let at = 0; at < FAST_HEADS.length; at++) {
    const head = FAST_HEADS[at]!;
    if (!holds(text, head, 0)) continue;
    const end = stringEnd(text, head.length);
    if (end < 0) return undefined;
    const body = text.slice(head.length, end);
    return {
      seq,
      head: FAST_IDS[at]!,
      body,
      tail: text.slice(end),
      list: fitting(list, seq, body),
    };
  }
  return undefined;
}

// Any other key order: parsed, the text taken out, the rest serialized as the identity.
function parsedChunk(
  seq: number,
  text: string,
  list: RunChunks | undefined,
): Chunk | undefined {
  let payload: { update?: Record<string, unknown> } | null;
  try {
    payload = JSON.parse(text) as typeof payload;
  } catch {
    return undefined;
  }
  const update = payload?.update;
  const content = update?.["content"] as Record<string, unknown> | undefined;
  if (
    !update ||
    !(CHUNK_KINDS as readonly string[]).includes(
      update["sessionUpdate"] as string,
    ) ||
    content?.["type"] !== "text" ||
    typeof content["text"] !== "string"
  )
    return undefined;
  const marker = "\u0000acphub-text\u0000";
  const shape = JSON.stringify({
    ...payload,
    update: { ...update, content: { ...content, text: marker } },
  });
  const at = shape.indexOf(JSON.stringify(marker).slice(1, -1));
  const body = JSON.stringify(content["text"]).slice(1, -1);
  return {
    seq,
    head: `p${shape.slice(0, at)}`,
    body,
    tail: shape.slice(at + JSON.stringify(marker).length - 2),
    list: fitting(list, seq, body),
  };
}

// An update's text as a chunk (standing for the chunks of `list` if it fits), or undefined when
// it is no text chunk.
function asChunk(
  seq: number,
  text: string,
  list: RunChunks | undefined,
): Chunk | undefined {
  return (
    fastChunk(seq, text, list) ??
    (text.includes("_chunk") ? parsedChunk(seq, text, list) : undefined)
  );
}

// Whether `chunk` continues `run` (of `count` chunks): same identity, its first sequence number
// the next one, and the run not made longer than MAX_RUN_CHUNKS chunks by it.
function continues(run: Chunk[], count: number, chunk: Chunk): boolean {
  const open = run[0];
  const last = run[run.length - 1];
  return (
    !open ||
    (open.head === chunk.head &&
      open.tail === chunk.tail &&
      last!.seq + 1 === (chunk.list?.firstSeq ?? chunk.seq) &&
      count + chunkCount(chunk) <= MAX_RUN_CHUNKS)
  );
}

// The chunk list of the merged row at `seq` if it fits the row's body: its chunks' seqs end at
// the row's and their lengths add up to the body's (a body written in other escapes, read by
// parsing, does not), so that a merged run's list stays true. Otherwise the row is one chunk.
function fitting(
  list: RunChunks | undefined,
  seq: number,
  body: string,
): RunChunks | undefined {
  if (!list) return undefined;
  let total = 0;
  for (const length of list.lengths) total += length;
  return list.firstSeq + list.lengths.length - 1 === seq &&
    total === body.length
    ? list
    : undefined;
}

// Plans the merge of the runs in `events` (one turn's events, or one session's spooled rows, in
// order).
export function planCompaction(
  events: readonly Pick<StoredEvent, "seq" | "kind" | "text">[],
): MergedRun[] {
  const rows: unknown[][] = [];
  for (const e of events) if (e.kind === "update") rows.push([e.seq, e.text]);
  return planUpdates(rows, 0);
}

/** A database's [seq, text] rows copied into arrays made here, as the other callers' are: the
 * planner then sees one kind of array (the databases' are of another kind, and V8 threw the
 * compiled planner away when they came; issue 39, fifteenth round). */
export function plannerRows(rows: readonly unknown[][]): unknown[][] {
  const out: unknown[][] = [];
  for (const row of rows) out.push([row[0], row[1]]);
  return out;
}

/**
 * Plans the merge of the runs in a turn's `update` rows [seq, text] as stored, in seq order
 * (rows of other kinds left out: the gap in seqs they leave ends a run). A row whose text is
 * not a JSON object's is skipped, as a read skips it; a chunk list is cut off as a read after
 * `afterSeq` does. A merged row with a chunk list that fits it is merged as its chunks; one that
 * the cursor `afterSeq` cuts is left as it is (merged again, its text before the cursor would be
 * lost).
 */
export function planUpdates(rows: unknown[][], afterSeq: number): MergedRun[] {
  const runs: MergedRun[] = [];
  let run: Chunk[] = [];
  let count = 0;
  const close = () => {
    if (run.length > 1) runs.push(mergedRun(run));
    run = [];
    count = 0;
  };
  // Indexed, not destructured: this runs once per chunk in a process that has not compiled it.
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const seq = Number(row[0]);
    const text = row[1];
    if (
      typeof text !== "string" ||
      !text.startsWith("{") ||
      !text.endsWith("}")
    )
      continue;
    const listed = text.endsWith("]}");
    const list = listed ? chunkList(text) : undefined;
    // A merged row the cursor lies inside is read cut: it ends a run and joins none.
    if (list && afterSeq > 0 && afterSeq < seq && afterSeq >= list.firstSeq) {
      close();
      continue;
    }
    const chunk = asChunk(
      seq,
      listed ? readStored(text, seq, afterSeq) : text,
      list,
    );
    if (!chunk || !continues(run, count, chunk)) close();
    if (chunk) {
      run.push(chunk);
      count += chunkCount(chunk);
    }
  }
  close();
  return runs;
}

// A run of two or more chunks as one: their bodies joined between the first's head and the last's
// tail, each original chunk's length listed (a merged row's as its list has them).
function mergedRun(run: Chunk[]): MergedRun {
  const first = run[0]!;
  const last = run[run.length - 1]!;
  let body = "";
  const lengths: number[] = [];
  for (const chunk of run) {
    body += chunk.body;
    if (chunk.list) for (const n of chunk.list.lengths) lengths.push(n);
    else lengths.push(chunk.body.length);
  }
  return {
    fromSeq: first.list?.firstSeq ?? first.seq,
    lastSeq: last.seq,
    text: `${first.head.slice(1)}${body}${last.tail}`,
    bodyStart: first.head.length - 1,
    lengths,
  };
}

/** A run's stored text: masked, with its chunk list. A secret split across chunks is masked only
 * in the merged text, which then no longer matches the chunks: it keeps no list. `firstSeq`
 * goes in the list (the run's own unless the writer marks where the database writes it). */
export function storedRunText(
  run: MergedRun,
  mask: (text: string) => string,
  firstSeq: number | string = run.fromSeq,
): string {
  const text = mask(run.text);
  if (text !== run.text) return text;
  const { bodyStart, lengths } = run;
  return withChunks(text, { bodyStart, firstSeq, lengths });
}
