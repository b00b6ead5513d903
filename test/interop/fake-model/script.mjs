// The fake model's script language: markers in the user's prompt say what the "model" does this
// turn, so a test controls a real agent's tool calls from the prompt alone.
//   [[reply TOKEN]]        put TOKEN in the final text
//   [[write PATH|CONTENT]] call the agent's write tool (or its shell tool as a fallback)
//   [[read PATH]]          call the agent's read tool (or `cat`)
//   [[shell COMMAND]]      call the agent's shell tool
//   [[slow]]               stream the final text slowly (for cancel tests)
// Tool actions run one per model response, in order; once every one has a result the model
// answers with a final text that quotes the results.

const MARKER = /\[\[(reply|write|read|shell|slow)(?: ([^\]]*))?\]\]/g;

/**
 * @typedef {{ type: "write", path: string, content: string }
 *   | { type: "read", path: string }
 *   | { type: "shell", command: string }} ToolAction
 * @typedef {{ role: "user" | "assistant" | "tool", text: string }} Entry
 *   One message of a conversation, reduced to what the script needs: a tool result is `tool`.
 * @typedef {{ kind: "tool", action: ToolAction, index: number }
 *   | { kind: "text", text: string, slow: boolean }} Plan
 */

// Reads the markers of one prompt text.
export function parseMarkers(text) {
  /** @type {ToolAction[]} */
  const actions = [];
  const replies = [];
  let slow = false;
  for (const m of text.matchAll(MARKER)) {
    const [, name, arg = ""] = m;
    if (name === "reply") replies.push(arg);
    else if (name === "slow") slow = true;
    else if (name === "read") actions.push({ type: "read", path: arg });
    else if (name === "shell") actions.push({ type: "shell", command: arg });
    else {
      const bar = arg.indexOf("|");
      actions.push({
        type: "write",
        path: arg.slice(0, bar),
        content: arg.slice(bar + 1),
      });
    }
  }
  return { actions, replies, slow };
}

/** The `[[reply TOKEN]]` tokens of the user prompts in a conversation, in order. @param {Entry[]} conversation */
export function replyTokens(conversation) {
  return conversation
    .filter((e) => e.role === "user")
    .flatMap((e) => parseMarkers(e.text).replies);
}

// Decides the next response from the conversation so far (the last marked prompt is this turn's).
/** @param {Entry[]} conversation @param {boolean} toolsOffered @returns {Plan} */
export function plan(conversation, toolsOffered) {
  let start = -1;
  for (let i = conversation.length - 1; i >= 0; i--) {
    const e = conversation[i];
    if (e?.role === "user" && /\[\[\w+/.test(e.text)) {
      start = i;
      break;
    }
  }
  if (start < 0)
    return { kind: "text", text: "OK from the fake model.", slow: false };
  const { actions, replies, slow } = parseMarkers(
    conversation[start]?.text ?? "",
  );
  const results = conversation
    .slice(start + 1)
    .filter((e) => e.role === "tool");
  const next = actions[results.length];
  if (toolsOffered && next)
    return { kind: "tool", action: next, index: results.length };
  const quoted = results.map((r, i) => `[${i + 1}] ${brief(r.text)}`);
  const text = [
    replies.length ? `Reply: ${replies.join(" ")}.` : "Done.",
    ...(quoted.length ? ["Tool results:", ...quoted] : []),
  ].join("\n");
  return { kind: "text", text, slow };
}

// A tool result on one short line, without the reminders some agents append.
function brief(text) {
  return text
    .replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 160);
}

// Splits a text into a few chunks so that the agent sees a real stream.
export function chunksOf(text, count = 4) {
  const size = Math.max(1, Math.ceil(text.length / count));
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

// The slow stream: one short chunk at a time, until the client goes away or the limit.
export const SLOW = { chunkMs: 100, chunks: 600 };
