// Sandboxed processes die with acphub, even after kill -9: `setpriv --pdeathsig KILL`
// (util-linux) asks the kernel to kill a child when its parent dies. It covers the runtime's
// socat bridges (children of acphub) and the shell the runtime puts around bubblewrap, whose
// --die-with-parent then ends everything inside. Where setpriv cannot, the orphan reaper of
// the next acphub remains (terminals and bridges are recorded).
import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { fileURLToPath } from "node:url";
import which from "which";

const SOCAT_WRAPPER = fileURLToPath(
  new URL("./socat-with-parent.sh", import.meta.url),
);
const PROBE_TIMEOUT_MS = 5_000;

let probed: Promise<string | undefined> | undefined;

// The setpriv path when `setpriv --pdeathsig KILL` runs here (probed once), else undefined.
function setprivWithDeathSignal(): Promise<string | undefined> {
  probed ??= new Promise((resolve) => {
    const setpriv =
      process.platform === "linux"
        ? which.sync("setpriv", { nothrow: true })
        : null;
    if (setpriv === null) return resolve(undefined);
    execFile(
      setpriv,
      ["--pdeathsig", "KILL", "--", "true"],
      { timeout: PROBE_TIMEOUT_MS },
      (error) => resolve(error ? undefined : setpriv),
    );
  });
  return probed;
}

/** What to put before a sandboxed argv so its first process dies with acphub (or nothing). */
export async function deathSignalPrefix(): Promise<string[]> {
  const setpriv = await setprivWithDeathSignal();
  return setpriv ? [setpriv, "--pdeathsig", "KILL", "--"] : [];
}

/** The runtime's socatPath: socat run so that it dies with acphub, when that can be done. */
export async function socatWithParent(): Promise<string | undefined> {
  if ((await setprivWithDeathSignal()) === undefined) return undefined;
  try {
    accessSync(SOCAT_WRAPPER, constants.X_OK);
    return SOCAT_WRAPPER;
  } catch {
    return undefined; // a copy without its executable bit: plain socat
  }
}
