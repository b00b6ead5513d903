// Replay of a session's history to an editor (session/load): the stored text of each update sent
// as it is, with only the session id put in front; each recorded prompt as user_message_chunk
// updates. Frames are joined into large writes.
import type { StoredEvent } from "./ledger-port.js";
import { noticeParams, type NoticePayload } from "./notices.js";
import { authorMetaOf } from "./history.js";

const CHUNK_BYTES = 1 << 20;

/** The start of a session/update notification for `hubId`, up to its params' first field. */
export function updateFrameHead(hubId: string): string {
  return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${JSON.stringify(hubId)},`;
}

/** The frame of one stored update: its text is the params without the session id. */
export function storedUpdateFrame(head: string, text: string): string {
  return `${head}${text.slice(1)}}\n`;
}

// The frames of one stored event (none for events the editor never saw as updates); a notice
// in the form the editor takes (`asNotice`), as it was shown live.
function framesOf(head: string, event: StoredEvent, asNotice: boolean): string {
  if (event.kind === "update")
    return event.text.length > 2 ? storedUpdateFrame(head, event.text) : "";
  if (event.kind === "notice") {
    const notice = JSON.parse(event.text) as NoticePayload;
    return storedUpdateFrame(
      head,
      JSON.stringify(noticeParams(notice, asNotice)),
    );
  }
  if (event.kind !== "prompt") return "";
  const { prompt, author } = JSON.parse(event.text) as {
    prompt?: unknown;
    author?: unknown;
  };
  if (!Array.isArray(prompt)) return "";
  const meta = authorMetaOf(author);
  return prompt
    .map((content: unknown) =>
      storedUpdateFrame(
        head,
        JSON.stringify({
          update: { sessionUpdate: "user_message_chunk", content },
          ...(meta ? { _meta: meta } : {}),
        }),
      ),
    )
    .join("");
}

/** The replay as newline-terminated frames, in chunks of about a mebibyte. */
export function replayChunks(
  hubId: string,
  events: StoredEvent[],
  asNotice = false,
): string[] {
  const head = updateFrameHead(hubId);
  const chunks: string[] = [];
  let parts: string[] = [];
  let size = 0;
  for (const event of events) {
    const frames = framesOf(head, event, asNotice);
    if (!frames) continue;
    parts.push(frames);
    size += frames.length;
    if (size >= CHUNK_BYTES) {
      chunks.push(parts.join(""));
      parts = [];
      size = 0;
    }
  }
  if (parts.length > 0) chunks.push(parts.join(""));
  return chunks;
}
