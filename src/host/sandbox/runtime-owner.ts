// The OS sandbox runtime (its proxies and bridges) has one owner: the process. It is started
// on first use and stopped once, when the command ends; hosts and workflow runs only borrow
// it, so one of them ending never cuts the network of terminals still running in another.
// Kept apart from os-sandbox.ts so stopping costs nothing when no sandbox was started.

let stopper: (() => Promise<void>) | undefined;

/** Called by the runtime when it has started: how to stop it at the end of the process. */
export function runtimeStarted(stop: () => Promise<void>): void {
  stopper = stop;
}

/** Stops the runtime if it was started (the process's last step; safe to call twice). */
export async function stopSandboxRuntime(): Promise<void> {
  const stop = stopper;
  stopper = undefined;
  await stop?.();
}
