// Very long unbroken runs (a minified line, a base64 blob, 200,000 "A"s) take Chromium seconds
// to lay out even with overflow-wrap: anywhere. Breaking them with <wbr> every few dozen
// characters keeps layout linear; copying the text gives it back unchanged.
import { Fragment } from "preact";

const RUN = /\S{96,}/g;
const PIECE = 48;

// The pieces of a run, PIECE characters each.
function pieces(run: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < run.length; i += PIECE) out.push(run.slice(i, i + PIECE));
  return out;
}

/** Text with break opportunities in its long runs, as Preact children. */
export function Breakable({ text }: { text: string }) {
  if (!RUN.test(text)) return <>{text}</>;
  RUN.lastIndex = 0;
  const parts: preact.ComponentChildren[] = [];
  let last = 0;
  for (const match of text.matchAll(RUN)) {
    parts.push(text.slice(last, match.index));
    pieces(match[0]).forEach((p, i) => {
      if (i > 0) parts.push(<wbr key={`${match.index}-${i}`} />);
      parts.push(p);
    });
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return <Fragment>{parts}</Fragment>;
}

/** Adds <wbr> into the long runs of every text node under root (sanitized Markdown). */
export function breakLongWords(root: Node): void {
  const doc = root.ownerDocument ?? document;
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const long: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    RUN.lastIndex = 0;
    if (RUN.test((n as Text).data)) long.push(n as Text);
  }
  for (const node of long) {
    const frag = doc.createDocumentFragment();
    const text = node.data;
    let last = 0;
    for (const match of text.matchAll(RUN)) {
      frag.append(text.slice(last, match.index));
      pieces(match[0]).forEach((p, i) => {
        if (i > 0) frag.append(doc.createElement("wbr"));
        frag.append(p);
      });
      last = match.index + match[0].length;
    }
    frag.append(text.slice(last));
    node.replaceWith(frag);
  }
}
