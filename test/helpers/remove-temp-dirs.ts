// Setup file (vitest.config.ts): after a test file's own afterAll hooks (hooks run as a stack,
// this one registered first), its temporary folders go.
import { afterAll } from "vitest";
import { removeTempDirs } from "./temp-dirs.js";

afterAll(() => {
  if (process.env["ACPHUB_KEEP_TMP"] !== "1") removeTempDirs();
});
