// acphub's own version, read once from package.json so it is never out of step.
import { readFileSync } from "node:fs";

const pkg = JSON.parse(
  readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
) as { version: string };

export const ACPHUB_VERSION: string = pkg.version;
