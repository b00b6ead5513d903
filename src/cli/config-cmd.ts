// `acphub config path|show|validate`.
import { existsSync, readFileSync } from "node:fs";
import { parseConfig } from "../config/load.js";
import { resolvePaths } from "../config/paths.js";
import { HubError } from "../shared/errors.js";
import { SecretMasker } from "../shared/secrets.js";
import { cliContext, type GlobalOptions } from "./context.js";
import type { ExitCode } from "./exit-codes.js";
import { guarded } from "./guard.js";

const out = (text: string) => process.stdout.write(text);

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

export function configPath(options: GlobalOptions): ExitCode {
  return guarded(() => {
    const paths = resolvePaths(process.env, options.config);
    const missing = existsSync(paths.configFile)
      ? ""
      : " (not created yet; defaults apply)";
    out(`config: ${paths.configFile}${missing}\nstate:  ${paths.stateDir}\n`);
  });
}

export function configShow(options: GlobalOptions): ExitCode {
  return guarded(() => {
    const { config } = cliContext(options);
    out(JSON.stringify(masked(config), null, 2) + "\n");
  });
}

export function configValidate(
  file: string | undefined,
  options: GlobalOptions,
): ExitCode {
  return guarded(() => {
    const target = file ?? resolvePaths(process.env, options.config).configFile;
    if (!existsSync(target))
      throw new HubError(
        "CONFIG_INVALID",
        `config file ${target} does not exist`,
      );
    parseConfig(readFileSync(target, "utf8"), target);
    out(`${target} is valid\n`);
  });
}
