// The OS sandbox runtime belongs to the process: the command line stops it once, at its end.
export { stopSandboxRuntime } from "../host/sandbox/runtime-owner.js";
