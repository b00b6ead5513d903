// Imported first: zod (inside the ACP SDK) probes `new Function("")` to decide whether it may
// compile validators, which the page's Content-Security-Policy (no 'unsafe-eval') reports as a
// violation. Jitless mode skips the probe and never evaluates code.
import { config } from "zod/v4";

config({ jitless: true });
