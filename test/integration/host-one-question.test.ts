// One action, one question: an agent's allowed permission request covers the fs/terminal
// requests that carry it out (same session and turn, matching path or command), whatever the
// agent's option ids; it covers nothing else, and a rejected one covers nothing.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type {
  PermissionOption,
  RequestPermissionRequest,
} from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import type { Approver } from "../../src/host/permission-engine.js";
import { hostedMock, requests } from "../helpers/host.js";
import { tempDir } from "../helpers/mock.js";

const workspace = () => {
  const dir = join(tempDir(), "ws");
  mkdirSync(dir);
  return dir;
};
const opt = (optionId: string, kind: string) =>
  ({ optionId, name: optionId, kind }) as PermissionOption;

/** Option ids as real agents send them (Claude, Gemini, Codex, others). */
const AGENT_OPTIONS: PermissionOption[][] = [
  [
    opt("allow_always", "allow_always"),
    opt("allow", "allow_once"),
    opt("reject", "reject_once"),
  ],
  [
    opt("proceed_always", "allow_always"),
    opt("proceed_once", "allow_once"),
    opt("cancel", "reject_once"),
  ],
  [
    opt("approved-for-session", "allow_always"),
    opt("approved", "allow_once"),
    opt("abort", "reject_once"),
  ],
  [opt("once", "allow_once"), opt("no", "reject_once")],
  [opt("allow-once", "allow_once"), opt("deny", "reject_once")],
];

// An approver that records each question's title and answers by option kind.
function person(answer: (r: RequestPermissionRequest) => "allow" | "reject") {
  const asked: string[] = [];
  const approver: Approver = async (request) => {
    asked.push(request.toolCall.title ?? "");
    const kind = `${answer(request)}_once`;
    const option = request.options.find((o) => o.kind === kind)!;
    return { outcome: "selected", optionId: option.optionId };
  };
  return { asked, approver };
}
const allowAll = () => person(() => "allow");

// One turn in `ask` mode, a person answering by `answer`: what was asked, what was requested.
async function askedTurn(
  ws: string,
  answer: (r: RequestPermissionRequest) => "allow" | "reject",
  ...list: Record<string, unknown>[]
) {
  const { asked, approver } = person(answer);
  const h = await hostedMock("ask", { approver });
  try {
    const events = await h.turn(ws, ...list);
    return { asked, requests: requests(events) };
  } finally {
    await h.close();
  }
}
const allow = () => "allow" as const;

// The permission request as Claude's adapter sends it: no kind, its own option ids.
const askLike = (
  toolCallId: string,
  title: string,
  rawInput: Record<string, unknown>,
  options?: PermissionOption[],
) => ({
  permission: {
    toolCallId,
    title,
    kind: null,
    toolCall: { rawInput },
    ...(options ? { options } : {}),
  },
  onReject: "continue",
});

describe("one action, one question", () => {
  it("an allowed write covers the fs/write_text_file that carries it out, whatever the option ids", async () => {
    const { asked, approver } = allowAll();
    const h = await hostedMock("ask", { approver });
    try {
      for (const options of AGENT_OPTIONS) {
        const ws = workspace();
        const file = join(ws, "hello.txt");
        asked.length = 0;
        const events = await h.turn(
          ws,
          askLike(
            "w1",
            `Write ${file}`,
            { file_path: file, content: "hi" },
            options,
          ),
          { writeFile: { path: file, content: "hi" } },
        );
        expect(asked).toEqual([`Write ${file}`]);
        expect(requests(events).map((r) => r.ok)).toEqual([true]);
        expect(readFileSync(file, "utf8")).toBe("hi");
      }
    } finally {
      await h.close();
    }
  });

  it("a path named relative to the session's cwd, or only by the announced tool call, matches", async () => {
    const ws = workspace();
    const turn = await askedTurn(
      ws,
      allow,
      askLike("w1", "Write notes", { path: "sub/../notes.md", content: "x" }),
      { writeFile: { path: join(ws, "notes.md"), content: "x" } },
      {
        toolCall: {
          toolCallId: "e2",
          title: "Edit b.txt",
          kind: "edit",
          locations: [{ path: join(ws, "b.txt") }],
        },
      },
      askLike("e2", "Edit", {}),
      { writeFile: { path: join(ws, "b.txt"), content: "y" } },
    );
    expect(turn.asked).toEqual(["Write notes", "Edit"]);
    expect(turn.requests.map((r) => r.ok)).toEqual([true, true]);
  });

  it("covers nothing else: another path is asked about, and refused here", async () => {
    const ws = workspace();
    const turn = await askedTurn(
      ws,
      (r) => (r.toolCall.title?.includes("b.txt") ? "reject" : "allow"),
      askLike("w1", "Write a.txt", { file_path: "a.txt", content: "a" }),
      { writeFile: { path: join(ws, "a.txt"), content: "a" } },
      { writeFile: { path: join(ws, "b.txt"), content: "b" } },
    );
    expect(turn.asked).toEqual(["Write a.txt", `Write ${join(ws, "b.txt")}`]);
    expect(turn.requests.map((r) => r.ok)).toEqual([true, false]);
    expect(existsSync(join(ws, "b.txt"))).toBe(false);
  });

  it("a rejected permission is not widened into anything", async () => {
    const ws = workspace();
    const file = join(ws, "a.txt");
    const turn = await askedTurn(
      ws,
      () => "reject",
      askLike("w1", "Write a.txt", { file_path: file, content: "a" }),
      { writeFile: { path: file, content: "a" } },
    );
    expect(turn.asked).toEqual(["Write a.txt", `Write ${file}`]);
    expect(turn.requests.map((r) => r.ok)).toEqual([false]);
    expect(existsSync(file)).toBe(false);
  });

  it("a tool call of no known kind covers exactly the path it named", async () => {
    const ws = workspace();
    const file = join(ws, "m.txt");
    const turn = await askedTurn(
      ws,
      allow,
      askLike("m1", "Mystery", { path: file }),
      { writeFile: { path: file, content: "m" } },
    );
    expect(turn.asked).toEqual(["Mystery"]);
    expect(turn.requests.map((r) => r.ok)).toEqual([true]);
  });

  it("an allowed command covers the terminal that runs it, as argv or shell script, and no other command", async () => {
    const turn = await askedTurn(
      workspace(),
      (r) => (r.toolCall.title?.includes("bye") ? "reject" : "allow"),
      askLike("x1", "`echo  hi`", { command: "echo  hi" }),
      { terminal: { command: "echo", args: ["hi"] } },
      askLike("x2", "Shell", { command: ["bash", "-lc", "echo there"] }),
      { terminal: { command: "sh", args: ["-c", "echo there"] } },
      { terminal: { command: "echo", args: ["bye"] } },
    );
    expect(turn.asked).toEqual(["`echo  hi`", "Shell", "Run echo bye"]);
    const creates = turn.requests.filter((r) => r.method === "terminal/create");
    expect(creates.map((r) => r.ok)).toEqual([true, true, false]);
  });
});
