// A merged run remembers where each of its original chunks ended, so that a client whose cursor
// lies inside the run (it saw the reply's first chunks, then reconnected after compaction) reads
// only the text after its cursor. The list is the stored payload's last key, so it is found and
// cut off without parsing; no reader ever sees it.

/** The key, as written after the merged payload's other keys. */
const KEY = ',"_acphubChunks":[';

/** Where the joined text starts in the merged JSON, the first chunk's seq, each chunk's length. */
export interface RunChunks {
  /** Offset of the (escaped) joined text in the merged JSON text. */
  bodyStart: number;
  /** The run's first sequence number; the run's chunks have consecutive ones. */
  firstSeq: number;
  /** The escaped length of each chunk's text, in order. */
  lengths: number[];
}

/** The merged payload text with its chunk list added as the last key (the first seq may be a
 * mark the database replaces: postgres/pg-batch-fn-v15.ts). */
export function withChunks(
  text: string,
  chunks: Omit<RunChunks, "firstSeq"> & { firstSeq: number | string },
): string {
  const list = [chunks.bodyStart, chunks.firstSeq, ...chunks.lengths];
  return `${text.slice(0, -1)}${KEY}${list.join(",")}]}`;
}

const COMMA = 44;
const ZERO = 48;

// The chunk list read back (the numbers withChunks wrote: digits and commas only), or undefined
// when it is not one acphub wrote. Read a character at a time: split and Number made an array
// whose numbers V8 did not always keep small, and the compiled planner that read it was thrown
// away for that (issue 39, thirteenth round).
function parseList(list: string, textEnd: number): RunChunks | undefined {
  const lengths: number[] = [];
  let bodyStart = -1;
  let firstSeq = -1;
  let total = 0;
  let n = 0;
  let digits = 0;
  for (let i = 0; i <= list.length; i++) {
    const c = i < list.length ? list.charCodeAt(i) : COMMA;
    if (c >= ZERO && c <= ZERO + 9 && digits < 15) {
      n = n * 10 + (c - ZERO);
      digits += 1;
      continue;
    }
    if (c !== COMMA || digits === 0) return undefined;
    if (bodyStart < 0) bodyStart = n;
    else if (firstSeq < 0) firstSeq = n;
    else {
      lengths.push(n);
      total += n;
    }
    n = 0;
    digits = 0;
  }
  return firstSeq >= 0 && bodyStart + total <= textEnd
    ? { bodyStart, firstSeq, lengths }
    : undefined;
}

/** A stored update's chunk list, or undefined when it has none that acphub wrote. */
export function chunkList(text: string): RunChunks | undefined {
  if (!text.endsWith("]}")) return undefined;
  const at = text.lastIndexOf(KEY);
  return at < 0 ? undefined : parseList(text.slice(at + KEY.length, -2), at);
}

/**
 * A stored update's text as readers see it: without the chunk list and, when `afterSeq` lies
 * inside the merged run kept at `seq`, with only the text of the chunks after `afterSeq`.
 */
export function readStored(
  text: string,
  seq: number,
  afterSeq: number,
): string {
  if (!text.endsWith("]}")) return text;
  const at = text.lastIndexOf(KEY);
  if (at < 0) return text;
  const plain = `${text.slice(0, at)}}`;
  if (afterSeq <= 0 || afterSeq >= seq) return plain;
  const chunks = parseList(text.slice(at + KEY.length, -2), at);
  if (!chunks || afterSeq < chunks.firstSeq) return plain;
  const seen = chunks.lengths.slice(0, afterSeq - chunks.firstSeq + 1);
  const cut = seen.reduce((sum, n) => sum + n, 0);
  return `${plain.slice(0, chunks.bodyStart)}${plain.slice(chunks.bodyStart + cut)}`;
}

/**
 * A merged update's chunks as they were before the merge, each at its own seq after `afterSeq`:
 * the merged text's head and tail around each chunk's text. Undefined for a row with no chunk
 * list acphub wrote, or one that does not end at `seq` (read whole then).
 */
export function eachChunk(
  text: string,
  seq: number,
  afterSeq: number,
): [number, string][] | undefined {
  const list = chunkList(text);
  if (!list || list.firstSeq + list.lengths.length - 1 !== seq)
    return undefined;
  const plain = readStored(text, seq, 0);
  const head = plain.slice(0, list.bodyStart);
  let from = list.bodyStart;
  const bodies = list.lengths.map((n) => plain.slice(from, (from += n)));
  const tail = plain.slice(from);
  return bodies
    .map((body, i): [number, string] => [
      list.firstSeq + i,
      `${head}${body}${tail}`,
    ])
    .filter(([chunkSeq]) => chunkSeq > afterSeq);
}
