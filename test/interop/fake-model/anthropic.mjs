// Anthropic Messages (`POST /v1/messages`, SSE when stream is true) for the fake model.
import { chunksOf } from "./script.mjs";
import { sseStart, streamText, textOf } from "./sse.mjs";

// The conversation and tools of a Messages request, in the script's terms.
export function anthropicRequest(body) {
  const entries = [];
  for (const m of body.messages ?? []) {
    const blocks =
      typeof m.content === "string"
        ? [{ type: "text", text: m.content }]
        : (m.content ?? []);
    const text = blocks
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join("\n");
    if (text) entries.push({ role: m.role, text });
    for (const b of blocks)
      if (b.type === "tool_result")
        entries.push({ role: "tool", text: textOf(b.content) });
  }
  const tools = (body.tools ?? [])
    .filter((t) => t.input_schema)
    .map((t) => ({
      name: t.name,
      description: t.description,
      schema: t.input_schema,
    }));
  return { entries, tools };
}

let seq = 0;

// Answers with a text or one tool_use, streamed or as one JSON message.
export async function anthropicRespond(res, body, plan, call) {
  const id = `msg_fake_${++seq}`;
  const usage = { input_tokens: 10, output_tokens: 5 };
  const stopReason = call ? "tool_use" : "end_turn";
  const toolId = `toolu_fake_${seq}`;
  if (!body.stream) {
    const content = call
      ? [{ type: "tool_use", id: toolId, name: call.name, input: call.args }]
      : [{ type: "text", text: plan.text }];
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id,
        type: "message",
        role: "assistant",
        model: body.model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      }),
    );
    return;
  }
  const sse = sseStart(res);
  sse.send("message_start", {
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model: body.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });
  if (call) {
    sse.send("content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: {
        type: "tool_use",
        id: toolId,
        name: call.name,
        input: {},
      },
    });
    sse.send("content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: {
        type: "input_json_delta",
        partial_json: JSON.stringify(call.args),
      },
    });
  } else {
    sse.send("content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    });
    await streamText(
      sse,
      plan,
      (text) =>
        sse.send("content_block_delta", {
          type: "content_block_delta",
          index: 0,
          delta: { type: "text_delta", text },
        }),
      chunksOf(plan.text),
    );
  }
  sse.send("content_block_stop", { type: "content_block_stop", index: 0 });
  sse.send("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  sse.send("message_stop", { type: "message_stop" });
  sse.end();
}

// `POST /v1/messages/count_tokens`: a rough count, enough for an agent's bookkeeping.
export function countTokens(res, body) {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      input_tokens: Math.ceil(JSON.stringify(body).length / 4),
    }),
  );
}
