// OpenAI Chat Completions (`POST /v1/chat/completions`, SSE) for the fake model.
import { chunksOf } from "./script.mjs";
import { sseStart, streamText, textOf } from "./sse.mjs";

// The conversation and tools of a Chat Completions request, in the script's terms.
export function chatRequest(body) {
  const entries = [];
  for (const m of body.messages ?? []) {
    if (m.role === "tool")
      entries.push({ role: "tool", text: textOf(m.content) });
    else if (m.role === "user" || m.role === "assistant")
      entries.push({ role: m.role, text: textOf(m.content) });
  }
  const tools = (body.tools ?? []).map((t) => ({
    name: t.function?.name,
    description: t.function?.description,
    schema: t.function?.parameters,
  }));
  return { entries, tools };
}

let seq = 0;

// Answers with streamed content or one tool call, then usage and [DONE].
export async function chatRespond(res, body, plan, call) {
  const id = `chatcmpl-fake-${++seq}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta, finish = null, extra = {}) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model: body.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (!body.stream) {
    const message = call
      ? {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: `call_fake_${seq}`,
              type: "function",
              function: {
                name: call.name,
                arguments: JSON.stringify(call.args),
              },
            },
          ],
        }
      : { role: "assistant", content: plan.text };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id,
        object: "chat.completion",
        created,
        model: body.model,
        choices: [
          { index: 0, message, finish_reason: call ? "tool_calls" : "stop" },
        ],
        usage,
      }),
    );
    return;
  }
  const sse = sseStart(res);
  sse.send(null, chunk({ role: "assistant", content: "" }));
  if (call) {
    sse.send(
      null,
      chunk({
        tool_calls: [
          {
            index: 0,
            id: `call_fake_${seq}`,
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          },
        ],
      }),
    );
  } else {
    await streamText(
      sse,
      plan,
      (content) => sse.send(null, chunk({ content })),
      chunksOf(plan.text),
    );
  }
  sse.send(null, chunk({}, call ? "tool_calls" : "stop"));
  sse.send(null, {
    id,
    object: "chat.completion.chunk",
    created,
    model: body.model,
    choices: [],
    usage,
  });
  sse.send(null, "[DONE]");
  sse.end();
}
