// OpenAI Responses (`POST /v1/responses`, SSE) for the fake model.
import { chunksOf } from "./script.mjs";
import { sseStart, streamText, textOf } from "./sse.mjs";

// The conversation and tools of a Responses request, in the script's terms.
export function responsesRequest(body) {
  const entries = [];
  const input =
    typeof body.input === "string"
      ? [{ type: "message", role: "user", content: body.input }]
      : (body.input ?? []);
  for (const item of input) {
    const type = item.type ?? "message";
    if (
      type === "message" &&
      (item.role === "user" || item.role === "assistant")
    )
      entries.push({ role: item.role, text: textOf(item.content) });
    else if (/_call_output$/.test(type))
      entries.push({ role: "tool", text: textOf(item.output) });
  }
  const tools = (body.tools ?? []).map((t) =>
    t.type === "function"
      ? { name: t.name, description: t.description, schema: t.parameters }
      : { name: t.name ?? t.type, freeform: true },
  );
  return { entries, tools };
}

let seq = 0;

// Answers with a message or one function_call, as the Responses event stream.
export async function responsesRespond(res, body, plan, call) {
  const id = `resp_fake_${++seq}`;
  const sse = sseStart(res);
  const base = {
    id,
    object: "response",
    model: body.model,
    status: "in_progress",
    output: [],
  };
  sse.send("response.created", { type: "response.created", response: base });
  let item;
  if (call) {
    item = {
      type: "function_call",
      id: `fc_fake_${seq}`,
      call_id: `call_fake_${seq}`,
      name: call.name,
      arguments: JSON.stringify(call.args),
      status: "completed",
    };
    sse.send("response.output_item.added", {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...item, arguments: "" },
    });
    sse.send("response.function_call_arguments.delta", {
      type: "response.function_call_arguments.delta",
      item_id: item.id,
      output_index: 0,
      delta: item.arguments,
    });
  } else {
    const msgId = `msg_fake_${seq}`;
    sse.send("response.output_item.added", {
      type: "response.output_item.added",
      output_index: 0,
      item: {
        type: "message",
        id: msgId,
        role: "assistant",
        status: "in_progress",
        content: [],
      },
    });
    let text = "";
    await streamText(
      sse,
      plan,
      (delta) => {
        text += delta;
        sse.send("response.output_text.delta", {
          type: "response.output_text.delta",
          item_id: msgId,
          output_index: 0,
          content_index: 0,
          delta,
        });
      },
      chunksOf(plan.text),
    );
    item = {
      type: "message",
      id: msgId,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text, annotations: [] }],
    };
  }
  sse.send("response.output_item.done", {
    type: "response.output_item.done",
    output_index: 0,
    item,
  });
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  sse.send("response.completed", {
    type: "response.completed",
    response: { ...base, status: "completed", output: [item], usage },
  });
  sse.end();
}
