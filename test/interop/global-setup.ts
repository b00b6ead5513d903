// Installs the lab's agents (cached by version) before any interop test runs. An agent that
// cannot be installed fails the whole stage with a message naming it; nothing is skipped.
import { installAll } from "./lab/install.mjs";

export default function setup(): void {
  for (const r of installAll())
    process.stderr.write(
      `interop: ${r.name} ${r.cached ? "cached" : "installed"} in ${r.dir}\n`,
    );
}
