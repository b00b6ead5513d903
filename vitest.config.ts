import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/interop/**", "node_modules/**", "dist/**"],
    testTimeout: 90_000,
    hookTimeout: 90_000,
    // expect.poll waits for something to become true; vitest's 1 s default made it a timed
    // assertion that a busy machine fails (a paced render of a long reply came 1+ s after its turn).
    expect: { poll: { timeout: 30_000 } },
    setupFiles: ["test/helpers/remove-temp-dirs.ts"],
    pool: "forks",
    maxWorkers: 2,
  },
});
