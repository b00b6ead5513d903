// Where acphub keeps its config and state: ACPHUB_HOME when set, else the XDG folders.
import { homedir } from "node:os";
import { join } from "node:path";

export interface HubPaths {
  configFile: string;
  stateDir: string;
}

type Env = Record<string, string | undefined>;

// ACPHUB_HOME is one folder for everything; otherwise config and state follow XDG.
export function resolvePaths(
  env: Env = process.env,
  configOverride?: string,
): HubPaths {
  const hubHome = env["ACPHUB_HOME"];
  if (hubHome) {
    return {
      configFile: configOverride ?? join(hubHome, "config.json"),
      stateDir: hubHome,
    };
  }
  const home = env["HOME"] ?? homedir();
  const configHome = env["XDG_CONFIG_HOME"] || join(home, ".config");
  const stateHome = env["XDG_STATE_HOME"] || join(home, ".local", "state");
  return {
    configFile: configOverride ?? join(configHome, "acphub", "config.json"),
    stateDir: join(stateHome, "acphub"),
  };
}
