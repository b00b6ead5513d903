import { describe, expect, it } from "vitest";
import { EXIT_CODES, toExitCode } from "../../src/cli/exit-codes.js";
import {
  HUB_ERROR_CODES,
  HubError,
  type HubErrorCode,
} from "../../src/shared/errors.js";

const EXPECTED: Record<HubErrorCode, number> = {
  USAGE: 2,
  CONFIG_INVALID: 2,
  AGENT_NOT_FOUND: 2,
  AGENT_SPAWN_FAILED: 1,
  AGENT_EXITED: 1,
  AGENT_UNRESPONSIVE: 1,
  AGENT_PROTOCOL: 1,
  AGENT_ERROR: 1,
  INIT_TIMEOUT: 3,
  PROTOCOL_VERSION: 1,
  AUTH_REQUIRED: 1,
  UNSUPPORTED: 1,
  PROMPT_IN_FLIGHT: 1,
  SESSION_NOT_FOUND: 4,
  PERMISSION_DENIED: 5,
  LIMIT_EXCEEDED: 1,
  BUDGET_EXCEEDED: 8,
  POOL_FULL: 1,
  TIMEOUT: 3,
  CLOSED: 1,
  LEDGER_UNAVAILABLE: 2,
  INTERNAL: 1,
  WORKFLOW_INVALID: 2,
  WORKFLOW_NOT_FOUND: 2,
  WORKFLOW_STEP_FAILED: 1,
  WORKFLOW_GATE_REJECTED: 5,
  WORKFLOW_TIMEOUT: 3,
  SECRET_MISSING: 2,
  REGISTRY_INVALID: 1,
  INSTALL_REFUSED: 1,
};

describe("toExitCode", () => {
  it.each(HUB_ERROR_CODES.map((c) => [c, EXPECTED[c]] as const))(
    "%s → %i",
    (code, exit) => {
      expect(toExitCode(new HubError(code, "x"))).toBe(exit);
    },
  );
  it("anything that is not a HubError is a plain error", () => {
    expect(toExitCode(new Error("boom"))).toBe(EXIT_CODES.error);
    expect(toExitCode("str")).toBe(1);
  });
  it("the table has the documented values", () => {
    expect(EXIT_CODES).toEqual({
      ok: 0,
      error: 1,
      usage: 2,
      timeout: 3,
      noSession: 4,
      permissionDenied: 5,
      turnLimit: 6,
      refusal: 7,
      budget: 8,
      interrupted: 130,
      brokenPipe: 141,
    });
  });
});
