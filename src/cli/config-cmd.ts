// `acphub config path|show|validate`.
import { existsSync } from "node:fs";
import { errorMessage } from "../shared/errors.js";
import { annotatedJson, DEFAULT_NOTES } from "../app/config-defaults.js";
import {
  checkConfigFile,
  configLocation,
  effectiveConfig,
} from "../app/config-report.js";
import { EXIT_CODES, toExitCode, type ExitCode } from "./exit-codes.js";
import { answer, fail, guarded, out, type JsonOptions } from "./guard.js";

// Where the config file and the state folder are; `--json` gives the same as data.
export function configPath(options: JsonOptions): Promise<ExitCode> {
  return guarded(() => {
    const where = configLocation(options.config);
    const missing = where.exists ? "" : " (not created yet; defaults apply)";
    const text = `config: ${where.config}${missing}\nstate:  ${where.state}\n`;
    answer(options.json, where, text);
  });
}

// The effective config: the file's values with the defaults filled in and marked, secrets
// masked. `--json` gives the same as data: the file, the merged config, the default paths.
export function configShow(options: JsonOptions): Promise<ExitCode> {
  return guarded(() => {
    const { file, paths, merged, fromDefaults } = effectiveConfig(options);
    if (options.json) {
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
    const source = file
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
  options: JsonOptions,
): ExitCode {
  const target = file ?? configLocation(options.config).config;
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
