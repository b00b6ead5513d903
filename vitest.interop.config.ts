// The interop stage (`npm run test:interop`): acphub against real agents installed by exact
// version, offline, driven by the lab's fake model server. Not part of `npm test`.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/interop/**/*.interop.test.ts"],
    globalSetup: ["test/interop/global-setup.ts"],
    setupFiles: ["test/helpers/remove-temp-dirs.ts"],
    testTimeout: 180_000,
    hookTimeout: 300_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
