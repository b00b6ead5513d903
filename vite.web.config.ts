// Builds the browser page (src/web) into dist/web: hashed assets, no inline script (the
// server's Content-Security-Policy forbids it), no request to any other host.
import { defineConfig } from "vite";

export default defineConfig({
  root: "src/web",
  base: "/",
  publicDir: false,
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "../../dist/web",
    emptyOutDir: true,
    assetsDir: "assets",
    modulePreload: { polyfill: false },
    target: "es2022",
    sourcemap: false,
  },
});
