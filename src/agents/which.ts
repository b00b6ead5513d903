// Finds an executable on PATH without a shell, to tell "installed" from "npx fallback"; the
// search itself is the `which` package's.
import whichPackage from "which";

export function which(
  command: string,
  pathVar?: string | undefined,
): string | undefined {
  return (
    whichPackage.sync(command, { nothrow: true, path: pathVar }) ?? undefined
  );
}
