// What `acphub config path | show | validate` ask: where the config file is, the effective config
// with secrets masked and the defaults filled in, and whether a config file is valid.
import { existsSync, readFileSync } from "node:fs";
import { parseConfig } from "../config/load.js";
import { resolvePaths } from "../config/paths.js";
import { HubError } from "../shared/errors.js";
import { SecretMasker } from "../shared/secrets.js";
import type { GlobalOptions } from "./context.js";
import { withConfigDefaults } from "./config-defaults.js";
import { checkDefaultAgent, loadCliConfig } from "./load-config.js";

const SECRET_KEY = /(KEY|TOKEN|SECRET|PASSWORD|AUTH|CREDENTIAL)/i;

// Masks values of agent `env` entries whose names look secret, and known secret values.
function masked(config: Record<string, unknown>): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(config)) as {
    agents?: Record<string, { env?: Record<string, string> }>;
  };
  for (const agent of Object.values(copy.agents ?? {})) {
    for (const key of Object.keys(agent.env ?? {}))
      if (SECRET_KEY.test(key)) agent.env![key] = "***";
  }
  return SecretMasker.fromEnv(process.env).maskValue(
    copy as Record<string, unknown>,
  );
}

// Where the config file (given by --config, else the default one) and the state folder are,
// and whether the file exists yet.
export function configLocation(config: string | undefined) {
  const paths = resolvePaths(process.env, config);
  const exists = existsSync(paths.configFile);
  return { config: paths.configFile, exists, state: paths.stateDir };
}

// The effective config: the file (if any), the merged values, the keys that are defaults.
export function effectiveConfig(options: GlobalOptions) {
  const { config, paths, fromFile } = loadCliConfig(options);
  const { merged, fromDefaults } = withConfigDefaults(masked(config));
  return {
    file: fromFile ? paths.configFile : null,
    paths,
    merged,
    fromDefaults,
  };
}

// Throws what is wrong with the file; a missing file is wrong only when it was named.
export function checkConfigFile(
  target: string,
  exists: boolean,
  named: boolean,
): void {
  if (!exists) {
    if (named)
      throw new HubError(
        "CONFIG_INVALID",
        `config file ${target} does not exist`,
      );
    return;
  }
  const config = parseConfig(readFileSync(target, "utf8"), target);
  checkDefaultAgent(config, target);
}
