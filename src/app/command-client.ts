// The session `run` and `chat` talk to: the agent started here, or the shim to a hub once the
// hub answers. Reaching the hub and opening the session fit in the command's deadline, else in
// DEFAULT_HUB_WAIT_MS; a new `run` session's agent starts before the rest of acphub loads.
import type { LoadedConfig } from "../config/load.js";
import type { PermissionMode } from "../config/schema.js";
import type { GlobalOptions } from "./context.js";
import {
  DEFAULT_HUB_WAIT_MS,
  hubUnanswered,
  withinDeadline,
  type Deadline,
} from "./deadline.js";
import type { LocalClient, LocalClientOptions } from "./local-client.js";
import { mockNoticeOnce } from "./mock-notice.js";
import { prespawnAgent, type AgentProcess } from "./prespawn.js";
import { workingDir } from "./working-dir.js";
import { traceSettings } from "../telemetry/settings.js";

/** What `run` and `chat` are told on their command line about the session they open. */
export interface SessionFlags extends GlobalOptions {
  agent?: string;
  cwd?: string;
  session?: string;
  permissions?: PermissionMode;
  /** A running hub to use instead of spawning the agent here. */
  hub?: string;
  tokenFile?: string;
}

export interface CommandClientOptions extends Omit<
  LocalClientOptions,
  "ctx" | "launch" | "viaHub" | "prespawned" | "signal"
> {
  /** `--hub`: a running hub to use instead of spawning the agent here. */
  hub?: string;
  tokenFile?: string;
  /** `--timeout`: bounds everything, and cuts the cancel grace to what it leaves. */
  deadline?: Deadline;
  /** Spawn the agent first, so its start-up overlaps with loading (run, for a new session). */
  prespawn?: boolean;
  /** Told the "no agent configured" notice, the first time in this state folder. */
  mockNotice?: (text: string) => void;
}

// The client options those flags say: --cwd checked (it must exist), --permissions over the
// config's mode over the command's own default.
export function fromFlags(
  loaded: LoadedConfig,
  o: SessionFlags,
  mode: PermissionMode,
) {
  return {
    agent: o.agent,
    hub: o.hub,
    tokenFile: o.tokenFile,
    sessionId: o.session,
    cwd: workingDir(o.cwd),
    mode: o.permissions ?? loaded.config.permissions?.mode ?? mode,
  };
}

// Whether spawned agents get acphub's telemetry receiver (then they start once it is up).
function agentsTraced(config: LoadedConfig["config"]): boolean {
  return (
    traceSettings(config) !== undefined && config.telemetry?.agents !== false
  );
}

// Opens the client; acphub's notices about it (a missing sandbox) go to `render` at once.
export async function openCommandClient(
  loaded: LoadedConfig,
  globals: GlobalOptions,
  o: CommandClientOptions,
): Promise<LocalClient> {
  const { hub, tokenFile, deadline, prespawn, mockNotice, ...local } = o;
  if (deadline)
    loaded = { ...loaded, config: withinDeadline(loaded.config, deadline) };
  // An unreachable hub fails at once (TIMEOUT); the shim is loaded only for --hub.
  const launch = hub
    ? await (
        await import("./hub-client.js")
      ).reachedHubLaunch(
        loaded.paths.stateDir,
        hub,
        tokenFile,
        deadline ? deadline.seconds * 1000 : DEFAULT_HUB_WAIT_MS,
      )
    : undefined;
  const hubStart =
    launch && !deadline ? AbortSignal.timeout(DEFAULT_HUB_WAIT_MS) : undefined;
  let prespawned: AgentProcess | undefined;
  try {
    // A traced agent is spawned once acphub's telemetry receiver is up (its env points there).
    if (prespawn && !agentsTraced(loaded.config))
      prespawned = await prespawnAgent(loaded, o.agent, o.cwd, launch);
    const [{ contextFrom }, { openLocalClient }] = await Promise.all([
      import("./context.js"),
      import("./local-client.js"),
    ]);
    const ctx = contextFrom(loaded, globals);
    const client = await openLocalClient({
      ...local,
      ctx,
      prespawned,
      launch,
      viaHub: launch !== undefined,
      signal: deadline?.signal ?? hubStart,
    });
    if (client.mockByDefault && mockNotice) {
      const notice = mockNoticeOnce(ctx.paths);
      if (notice) mockNotice(notice);
    }
    for (const title of client.notices)
      o.render({
        type: "notice",
        sessionId: client.sessionId,
        severity: "warning",
        title,
      });
    // A prespawned agent not handed to a connection is stopped with the client.
    return {
      ...client,
      close: () => client.close().finally(() => prespawned?.kill()),
    };
  } catch (error) {
    prespawned?.kill();
    throw hubStart?.aborted ? hubUnanswered(hub!, DEFAULT_HUB_WAIT_MS) : error;
  }
}
