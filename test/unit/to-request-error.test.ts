import { RequestError } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import {
  toRequestError,
  WIRE_CODE_OF,
} from "../../src/protocol/to-request-error.js";
import { HUB_ERROR_CODES, HubError } from "../../src/shared/errors.js";

describe("toRequestError", () => {
  it.each(HUB_ERROR_CODES.map((c) => [c, WIRE_CODE_OF[c]] as const))(
    "%s → %i",
    (code, wire) => {
      const error = toRequestError(
        new HubError(code, `msg ${code}`, { retryable: true }),
      );
      expect(error).toBeInstanceOf(RequestError);
      expect([error.code, error.message, error.data]).toEqual([
        wire,
        `msg ${code}`,
        { code, retryable: true },
      ]);
    },
  );
  it("the well-known ones", () => {
    expect(WIRE_CODE_OF.SESSION_NOT_FOUND).toBe(-32002);
    expect(WIRE_CODE_OF.AUTH_REQUIRED).toBe(-32000);
    expect(WIRE_CODE_OF.UNSUPPORTED).toBe(-32601);
    expect(WIRE_CODE_OF.WORKFLOW_NOT_FOUND).toBe(-32002);
    expect(WIRE_CODE_OF.WORKFLOW_INVALID).toBe(-32602);
  });
  it("a workflow error carries its file and step in data", () => {
    const error = toRequestError(
      new HubError("WORKFLOW_STEP_FAILED", "step test failed", {
        details: { step: "test", file: "/w/f.yaml" },
      }),
    );
    expect(error.data).toMatchObject({
      code: "WORKFLOW_STEP_FAILED",
      step: "test",
      file: "/w/f.yaml",
    });
  });
  it("a turn busy on another cluster node is retryable and names the node", () => {
    const error = toRequestError(
      new HubError("PROMPT_IN_FLIGHT", "busy on node-a", {
        retryable: true,
        details: { node: "node-a" },
      }),
    );
    expect(error.data).toEqual({
      code: "PROMPT_IN_FLIGHT",
      retryable: true,
      node: "node-a",
    });
  });
  it("an agent's own error passes through unchanged", () => {
    const cause = new RequestError(-32042, "agent says no", { hint: 1 });
    const wrapped = new HubError("AGENT_ERROR", "agent answered x", {
      cause,
      details: { wireCode: -32042 },
    });
    const error = toRequestError(wrapped);
    expect([error.code, error.message, error.data]).toEqual([
      -32042,
      "agent says no",
      { hint: 1 },
    ]);
  });
  it("keeps auth methods and the exit code for the editor", () => {
    const auth = toRequestError(
      new HubError("AUTH_REQUIRED", "log in", {
        details: { authMethods: [{ id: "x" }] },
      }),
    );
    expect(auth.data).toMatchObject({ authMethods: [{ id: "x" }] });
    const exited = toRequestError(
      new HubError("AGENT_EXITED", "died", {
        details: { code: 3, signal: null, stderrTail: "boom" },
      }),
    );
    expect(exited.data).toMatchObject({ exitCode: 3, stderrTail: "boom" });
  });
  it("RequestErrors pass; anything else is internal", () => {
    const original = RequestError.invalidParams();
    expect(toRequestError(original)).toBe(original);
    expect(toRequestError(new Error("x"))).toMatchObject({
      code: -32603,
      message: "x",
    });
  });
});
