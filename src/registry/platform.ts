// The registry's platform key for this machine (`linux-x86_64`, `darwin-aarch64`, …).
import type { Platform } from "./schema.js";

const OS: Record<string, string> = {
  linux: "linux",
  darwin: "darwin",
  win32: "windows",
};
const ARCH: Record<string, string> = { x64: "x86_64", arm64: "aarch64" };

// This process's platform key, or undefined on a platform the registry has no key for.
export function currentPlatform(): Platform | undefined {
  const os = OS[process.platform];
  const arch = ARCH[process.arch];
  return os && arch ? (`${os}-${arch}` as Platform) : undefined;
}
