import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/interop/**", "node_modules/**", "dist/**"],
    testTimeout: 90_000,
    hookTimeout: 90_000,
    setupFiles: ["test/helpers/remove-temp-dirs.ts"],
    pool: "forks",
    maxWorkers: 2,
  },
});
