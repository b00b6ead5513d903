// V8 settings of the acphub process, set before any other module loads (main.ts imports this
// first). Allocation-site pretenuring is off: V8 saw the hub's per-update objects (a spooled
// batch's rows, which live until the spool is folded) survive and allocated every object of
// those sites in the old generation from then on, where each one died a major collection later
// and kept what it pointed to (the update's text, its line) alive past every scavenge. With 300
// sessions streaming that tripled what reached the old generation (1.1 KB per update against
// 0.36) and cost the hub 8-19 % of its CPU per update
// (docs/decisions/2026-12-05-no-allocation-site-pretenuring.md).
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--no-allocation-site-pretenuring");
