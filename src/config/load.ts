// Reads and validates the config file; a missing file is an empty config, a bad one an error
// that names the file and the key.
import { readFileSync } from "node:fs";
import type { z } from "zod";
import { HubError } from "../shared/errors.js";
import { didYouMean } from "../shared/did-you-mean.js";
import { configSchema, type Config } from "./schema.js";
import { allowedKeysAt } from "./schema-keys.js";
import { resolvePaths, type HubPaths } from "./paths.js";

export interface LoadedConfig {
  config: Config;
  paths: HubPaths;
  /** False when no file exists and defaults apply. */
  fromFile: boolean;
}

export interface LoadConfigOptions {
  /** An explicit file (`--config FILE`): it must exist. */
  configFile?: string;
  env?: Record<string, string | undefined>;
}

// Formats the first zod issue as `key.path: message`.
function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.map(String).join(".");
      if (issue.code === "unrecognized_keys") {
        const allowed = allowedKeysAt(issue.path);
        const keys = issue.keys
          .map((k) => `${path ? `${path}.${k}` : k}${didYouMean(k, allowed)}`)
          .join(", ");
        return `unknown key ${keys}`;
      }
      return `${path || "(root)"}: ${issue.message}`;
    })
    .join("; ");
}

function readText(file: string, mustExist: boolean): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !mustExist) return undefined;
    throw new HubError(
      "CONFIG_INVALID",
      `cannot read config file ${file}: ${code ?? "error"}`,
      {
        cause: error,
      },
    );
  }
}

// Parses and validates text from `file`; exported for `config validate` and tests.
export function parseConfig(text: string, file: string): Config {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new HubError(
      "CONFIG_INVALID",
      `config file ${file} is not valid JSON: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const result = configSchema.safeParse(raw);
  if (!result.success) {
    throw new HubError(
      "CONFIG_INVALID",
      `config file ${file}: ${describeIssues(result.error)}`,
      {
        details: { file, issues: result.error.issues },
      },
    );
  }
  return result.data;
}

export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const paths = resolvePaths(options.env ?? process.env, options.configFile);
  const text = readText(paths.configFile, options.configFile !== undefined);
  if (text === undefined) return { config: {}, paths, fromFile: false };
  return { config: parseConfig(text, paths.configFile), paths, fromFile: true };
}
