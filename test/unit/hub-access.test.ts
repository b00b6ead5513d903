// Permission questions on a shared hub session (issue 22): they go to the prompting client,
// then to the session's other drivers — never to a client that may only watch it.
import { describe, expect, it } from "vitest";
import { Attachments, type HubClient } from "../../src/hub/attachments.js";
import { fanOutEditor } from "../../src/hub/fan-out.js";

// A client that records the requests it is sent and answers with its own name.
function fakeClient(id: string, asked: string[]): HubClient {
  return {
    id,
    closed: false,
    notify: () => undefined,
    request: <T>() => {
      asked.push(id);
      return Promise.resolve({
        outcome: { outcome: "selected", optionId: id },
      } as T);
    },
  };
}

const QUESTION = {
  sessionId: "s1",
  toolCall: { toolCallId: "t1" },
  options: [{ optionId: "allow", kind: "allow_once", name: "Allow" }],
};

describe("permission questions on a shared session", () => {
  it("skip the viewers when the prompter is gone, and are rejected when only viewers remain", async () => {
    const attachments = new Attachments();
    const asked: string[] = [];
    const viewer = fakeClient("viewer", asked);
    const driver = fakeClient("driver", asked);
    for (const c of [viewer, driver]) attachments.attach("s1", c);
    attachments.setWatchOnly("s1", viewer, true);
    const editor = fanOutEditor(attachments);
    expect(
      await editor.request("session/request_permission", QUESTION),
    ).toEqual({
      outcome: { outcome: "selected", optionId: "driver" },
    });
    attachments.detach(driver, "s1");
    const alone = (await editor.request(
      "session/request_permission",
      QUESTION,
    )) as {
      outcome: { outcome: string };
    };
    expect(alone.outcome.outcome).not.toBe("selected");
    expect(asked).toEqual(["driver"]);
  });
});
