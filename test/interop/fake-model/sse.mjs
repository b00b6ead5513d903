// Server-sent events for the fake model: one writer per response, honouring a client that left.

/** @param {import("node:http").ServerResponse} res */
export function sseStart(res) {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  let closed = false;
  res.on("close", () => (closed = true));
  return {
    /** Sends one event; `event` names it (Anthropic, Responses), null leaves it out (Chat). */
    send(event, data) {
      if (closed) return;
      const body = typeof data === "string" ? data : JSON.stringify(data);
      res.write(`${event ? `event: ${event}\n` : ""}data: ${body}\n\n`);
    },
    closed: () => closed,
    end() {
      if (!closed) res.end();
    },
  };
}

// Waits, or returns early when the client went away.
export function pause(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Streams text chunk by chunk through `emit`; slow mode ticks until the client leaves. */
export async function streamText(sse, plan, emit, chunks) {
  if (plan.slow) {
    const { SLOW } = await import("./script.mjs");
    for (let i = 0; i < SLOW.chunks && !sse.closed(); i++) {
      emit(`tick ${i} `);
      await pause(SLOW.chunkMs);
    }
    return;
  }
  for (const chunk of chunks) {
    emit(chunk);
    await pause(5);
  }
}

// The text of a content value in any of the APIs' shapes (string, block list, {text}).
export function textOf(content) {
  if (content == null) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map(textOf).join("");
  if (typeof content === "object") {
    if (typeof content.text === "string") return content.text;
    if ("content" in content) return textOf(content.content);
    if ("output" in content) return textOf(content.output);
  }
  return "";
}
