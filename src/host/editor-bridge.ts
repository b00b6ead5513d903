// An editor that serves some fs/terminal methods itself; acphub relays to it after its own checks.
import type { BridgeMethod } from "../contracts/client-host.js";

export interface EditorBridge {
  handles(method: BridgeMethod): boolean;
  request(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<unknown>;
}
