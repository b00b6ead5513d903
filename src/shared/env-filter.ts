// Builds the environment a subprocess (an agent or a terminal) may see: an allowlist of
// harmless variables, plus named extras, minus anything that looks like someone else's secret.

/** Variables every agent and terminal gets when acphub has them. */
// prettier-ignore
export const BASE_ENV_ALLOW: readonly string[] = [
  "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "COLORTERM", "LANG", "LANGUAGE", "LC_*",
  "TZ", "TMPDIR", "TEMP", "TMP", "XDG_*", "EDITOR", "VISUAL", "PAGER", "NO_COLOR", "FORCE_COLOR",
  "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
  "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "IS_SANDBOX",
];

/** Removed even when an agent's registry entry passes them, unless the user names them. */
// prettier-ignore
export const ENV_DENY: readonly string[] = [
  "AWS_*", "GITHUB_*", "GOOGLE_*", "AZURE_*", "DATABASE_*", "SSH_*", "GH_TOKEN", "PGPASSWORD",
  "NPM_TOKEN", "*TOKEN*", "*SECRET*", "*PASSWORD*",
];

// Turns `LC_*`/`*TOKEN*` globs into a test; a pattern without `*` must match exactly.
function matcher(patterns: readonly string[]): (name: string) => boolean {
  const exact = new Set(patterns.filter((p) => !p.includes("*")));
  const globs = patterns
    .filter((p) => p.includes("*"))
    .map(
      (p) => new RegExp(`^${p.split("*").map(escapeRegExp).join(".*")}$`, "i"),
    );
  return (name) => exact.has(name) || globs.some((re) => re.test(name));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export interface EnvFilterOptions {
  /** Variables the agent's registry entry legitimately needs; still subject to the deny list. */
  registryAllow?: readonly string[];
  /** Variables the user named (config `passEnv`, `env.allow`): pass even if denied. */
  userAllow?: readonly string[];
  /** Literal values to set (config `env`). */
  set?: Record<string, string>;
}

/** A URL's (or a bare `user:pass@host`'s) userinfo, up to the last `@` before the path. */
const USERINFO = /^((?:[A-Za-z][A-Za-z0-9+.-]*:\/\/)?)([^/?#]*)@/;

// The `user:password` of a URL-like value, or undefined when it names none.
export function userinfoOf(value: string): string | undefined {
  return USERINFO.exec(value)?.[2] || undefined;
}

/** Proxy variables: their URL's `user:password@` is a credential (docs/policy.md, "Environment"). */
const PROXY_ENV = /^(https?|all|ftp)_proxy$/i;

// The URL without its `user:password@`, or the value as it is when it names none.
export function withoutUserinfo(value: string): string {
  return value.replace(USERINFO, "$1");
}

// A proxy variable passed on by the allowlist loses its credentials; one the user named
// (`env.allow`, an agent's `passEnv`) keeps them, as they asked.
function passed(name: string, value: string): string {
  return PROXY_ENV.test(name) ? withoutUserinfo(value) : value;
}

export function filterEnv(
  source: Record<string, string | undefined>,
  options: EnvFilterOptions = {},
): Record<string, string> {
  const base = matcher(BASE_ENV_ALLOW);
  const registry = matcher(options.registryAllow ?? []);
  const user = matcher(options.userAllow ?? []);
  const denied = matcher(ENV_DENY);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (user(name)) out[name] = value;
    else if ((base(name) || registry(name)) && !denied(name))
      out[name] = passed(name, value);
  }
  return { ...out, ...options.set };
}

/**
 * Variables that make a program load or run other code, or change which program runs: an
 * agent's terminal `env` (and a script's own assignments) may not set them where no OS sandbox
 * runs, unless the user allows them by name (`terminals.allowAgentEnv`). Documented in
 * docs/policy.md.
 */
// prettier-ignore
export const LOADER_ENV: readonly string[] = [
  // which program runs, and the dynamic loader
  "PATH", "*PATH", "LD_*", "DYLD_*", "GCONV_PATH", "GLIBC_TUNABLES", "HOSTALIASES",
  // shells: start files, exported functions, prompts and options that run code
  "BASH_ENV", "ENV", "BASH_FUNC_*", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND",
  "ZDOTDIR", "HOME", "SHELL", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "INPUTRC",
  // interpreters and runtimes
  "NODE_*", "NPM_CONFIG_*", "PYTHON*", "PERL*", "RUBY*", "GEM_*", "BUNDLE_*", "LUA_*", "TCL*",
  "PHPRC", "PHP_INI_SCAN_DIR", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
  "CLASSPATH", "*_OPTIONS", "*OPTS",
  // build tools and version control that run configured programs
  "GIT_*", "MAKEFLAGS", "MAKEFILES", "MFLAGS", "GOFLAGS", "GOENV", "CARGO_*", "RUSTC*",
  "RUSTFLAGS", "CC", "CXX", "CPP", "LD", "AR",
  // programs other programs start for you
  "EDITOR", "VISUAL", "*PAGER", "LESSOPEN", "LESSCLOSE", "*ASKPASS", "BROWSER", "TERMINFO*",
];

// The first variable in `names` the loader list covers and `allowed` does not, if any.
// acphub's own `ACPHUB_*` names (a workflow's values, e.g. ACPHUB_ENV_PATH) carry data that no
// program reads as code, whatever their suffix.
export function loaderRefusal(
  names: readonly string[],
  allowed: readonly string[] = [],
): string | undefined {
  const loader = matcher(LOADER_ENV);
  const user = matcher(allowed);
  return names.find((n) => !n.startsWith("ACPHUB_") && loader(n) && !user(n));
}
