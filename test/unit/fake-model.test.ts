// The interop lab's fake model on its own: each API's wire shape, the mapping of scripted
// actions onto the tools an agent offers, the final text quoting tool results, 404s, and a
// slow stream abandoned by its client.
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  startFakeModel,
  type FakeModel,
} from "../interop/fake-model/server.mjs";

let model: FakeModel;
beforeEach(async () => {
  model = await startFakeModel();
});
afterEach(() => model.close());

const post = (path: string, body: unknown, signal?: AbortSignal) =>
  fetch(model.url + path, {
    method: "POST",
    body: JSON.stringify(body),
    signal,
  });

// The JSON payloads of an SSE body, `[DONE]` left out.
const events = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith("data: ") && l !== "data: [DONE]")
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON, read loosely
    .map((l) => JSON.parse(l.slice(6)) as Record<string, any>);

it("Anthropic: a write marker becomes a tool_use of the agent's write tool, required args filled", async () => {
  const tools = [
    {
      name: "mcp__acp__Write",
      input_schema: { properties: { file_path: {}, content: {} } },
    },
    {
      name: "mcp__acp__Bash",
      input_schema: {
        properties: {
          command: { type: "string" },
          timeout: { type: "number" },
        },
        required: ["command", "timeout"],
      },
    },
  ];
  const user = {
    role: "user",
    content: "go [[write /w/a.txt|HI]] [[shell echo ok]]",
  };
  const first = events(
    await (
      await post("/v1/messages", { stream: true, tools, messages: [user] })
    ).text(),
  );
  expect(
    first.find((e) => e["type"] === "content_block_start")?.["content_block"],
  ).toMatchObject({ type: "tool_use", name: "mcp__acp__Write" });
  const json = first
    .filter((e) => e["delta"]?.type === "input_json_delta")
    .map((e) => e["delta"].partial_json)
    .join("");
  expect(JSON.parse(json)).toEqual({ file_path: "/w/a.txt", content: "HI" });
  const result = {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "t1", content: "written" }],
  };
  const reply = await post("/v1/messages", {
    stream: false,
    tools,
    messages: [user, result],
  });
  const second = (await reply.json()) as { content: unknown[] };
  expect(second.content[0]).toMatchObject({
    type: "tool_use",
    name: "mcp__acp__Bash",
    input: { command: "echo ok", timeout: 60000 },
  });
});

it("Responses: with only a shell tool, a write is a printf through it", async () => {
  const tools = [
    {
      type: "function",
      name: "exec_command",
      parameters: { properties: { cmd: { type: "string" } } },
    },
  ];
  const input = [
    {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "[[write /w/b.txt|X]]" }],
    },
  ];
  const list = events(
    await (await post("/v1/responses", { stream: true, tools, input })).text(),
  );
  const done = list.find((e) => e["type"] === "response.output_item.done")?.[
    "item"
  ];
  expect(done).toMatchObject({ type: "function_call", name: "exec_command" });
  expect(JSON.parse(done.arguments).cmd).toBe(
    "printf '%s\\n' 'X' > '/w/b.txt'",
  );
  expect(list.at(-1)?.["type"]).toBe("response.completed");
});

it("Chat Completions: one tool call per response, then a text quoting every result", async () => {
  const fn = (name: string, props: string[]) => ({
    type: "function",
    function: {
      name,
      parameters: { properties: Object.fromEntries(props.map((p) => [p, {}])) },
    },
  });
  const tools = [
    fn("write", ["path", "content"]),
    fn("read", ["path"]),
    fn("bash", ["command"]),
  ];
  const messages: unknown[] = [
    {
      role: "user",
      content: "[[write /w/c|C]] [[read /w/c]] [[shell echo S]] [[reply TK]]",
    },
  ];
  const names: string[] = [];
  for (const out of ["wrote", "C-CONTENT", "S-OUT"]) {
    const chunks = events(
      await (
        await post("/v1/chat/completions", { stream: true, tools, messages })
      ).text(),
    );
    const call = chunks.flatMap(
      (c) => c["choices"]?.[0]?.delta?.tool_calls ?? [],
    )[0];
    names.push(call.function.name);
    messages.push(
      { role: "assistant", tool_calls: [call] },
      { role: "tool", tool_call_id: call.id, content: out },
    );
  }
  expect(names).toEqual(["write", "read", "bash"]);
  const final = events(
    await (
      await post("/v1/chat/completions", { stream: true, tools, messages })
    ).text(),
  );
  const text = final
    .map((c) => c["choices"]?.[0]?.delta?.content ?? "")
    .join("");
  expect(text).toContain("Reply: TK.");
  for (const out of ["wrote", "C-CONTENT", "S-OUT"])
    expect(text).toContain(out);
});

it("an unknown route is a 404 and a log line; a slow stream left by its client is marked aborted", async () => {
  expect((await fetch(`${model.url}/v2/other`)).status).toBe(404);
  expect(model.unknown().map((l) => l.path)).toEqual(["/v2/other"]);
  const controller = new AbortController();
  const res = await post(
    "/v1/chat/completions",
    { stream: true, messages: [{ role: "user", content: "[[slow]]" }] },
    controller.signal,
  );
  const reader = res.body!.getReader();
  await reader.read();
  controller.abort();
  const end = Date.now() + 5000;
  while (!model.log.some((l) => l.aborted) && Date.now() < end)
    await new Promise((r) => setTimeout(r, 20));
  expect(model.log.some((l) => l.aborted)).toBe(true);
});
