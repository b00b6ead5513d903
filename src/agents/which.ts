// Finds an executable on PATH without a shell, to tell "installed" from "npx fallback".
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

export function which(
  command: string,
  pathVar = process.env["PATH"] ?? "",
): string | undefined {
  const candidates = command.includes("/")
    ? [command]
    : pathVar
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return isAbsolute(candidate) ? candidate : join(process.cwd(), candidate);
    } catch {
      // not here
    }
  }
  return undefined;
}
