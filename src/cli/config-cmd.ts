// `acphub config path|show|validate`.
import { existsSync, readFileSync } from "node:fs";
import { parseConfig } from "../config/load.js";
import { resolvePaths } from "../config/paths.js";
import { errorMessage, HubError } from "../shared/errors.js";
import { SecretMasker } from "../shared/secrets.js";
import type { GlobalOptions } from "../app/context.js";
import {
  annotatedJson,
  DEFAULT_NOTES,
  withConfigDefaults,
} from "../app/config-defaults.js";
import { checkDefaultAgent, loadCliConfig } from "../app/load-config.js";
import { EXIT_CODES, toExitCode, type ExitCode } from "./exit-codes.js";
import { fail, guarded } from "./guard.js";

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

// Where the config file and the state folder are; `--json` gives the same as data.
export function configPath(
  options: GlobalOptions & { json?: boolean },
): ExitCode {
  return guarded(() => {
    const paths = resolvePaths(process.env, options.config);
    const exists = existsSync(paths.configFile);
    if (options.json) {
      const report = {
        config: paths.configFile,
        exists,
        state: paths.stateDir,
      };
      out(JSON.stringify(report) + "\n");
      return;
    }
    const missing = exists ? "" : " (not created yet; defaults apply)";
    out(`config: ${paths.configFile}${missing}\nstate:  ${paths.stateDir}\n`);
  });
}

// The effective config: the file's values with the defaults filled in and marked, secrets
// masked. `--json` gives the same as data: the file, the merged config, the default paths.
export function configShow(
  options: GlobalOptions & { json?: boolean },
): ExitCode {
  return guarded(() => {
    const { config, paths, fromFile } = loadCliConfig(options);
    const { merged, fromDefaults } = withConfigDefaults(masked(config));
    if (options.json) {
      const file = fromFile ? paths.configFile : null;
      out(
        JSON.stringify({
          file,
          config: merged,
          defaults: fromDefaults,
          notes: DEFAULT_NOTES,
        }) + "\n",
      );
      return;
    }
    const source = fromFile
      ? `// ${paths.configFile}, with defaults for what it does not set`
      : `// no config file at ${paths.configFile}: every value is a default`;
    out(`${source}\n${annotatedJson(merged, new Set(fromDefaults))}\n`);
  });
}

// Checks a config file. With no file at all there is nothing to check: defaults apply, as
// `config path` says; a file named on the command line must exist. `--json` reports
// `{file, exists, valid, error?}` on stdout with the same exit code.
export function configValidate(
  file: string | undefined,
  options: GlobalOptions & { json?: boolean },
): ExitCode {
  const target = file ?? resolvePaths(process.env, options.config).configFile;
  const exists = existsSync(target);
  const report = (valid: boolean, error?: unknown) =>
    out(
      JSON.stringify({
        file: target,
        exists,
        valid,
        ...(error === undefined ? {} : { error: errorMessage(error) }),
      }) + "\n",
    );
  try {
    checkConfigFile(target, exists, file !== undefined || !!options.config);
    if (options.json) report(true);
    else if (!exists)
      out(`no config file at ${target}: nothing to check, defaults apply\n`);
    else out(`${target} is valid\n`);
    return EXIT_CODES.ok;
  } catch (error) {
    if (!options.json) return fail(error);
    report(false, error);
    return toExitCode(error);
  }
}

// Throws what is wrong with the file; a missing file is wrong only when it was named.
function checkConfigFile(target: string, exists: boolean, named: boolean) {
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
