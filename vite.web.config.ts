// Builds the browser page (src/web) into dist/web: hashed assets, no inline script (the
// server's Content-Security-Policy forbids it), no request to any other host. The HTML loads a
// small first script (boot.ts: it dials the hub at once) and preloads the rest of the page
// (main.tsx, imported by boot.ts), so both load in parallel.
import { defineConfig, type Plugin } from "vite";

// `<link rel="modulepreload">` for the chunks boot.ts imports dynamically (the app itself).
function preloadApp(): Plugin {
  return {
    name: "acphub-preload-app",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(_html, ctx) {
        const chunks = Object.values(ctx.bundle ?? {}).filter(
          (c) => c.type === "chunk" && c.isDynamicEntry,
        );
        return chunks.map((c) => ({
          tag: "link",
          attrs: {
            rel: "modulepreload",
            crossorigin: true,
            href: `/${c.fileName}`,
          },
          injectTo: "head" as const,
        }));
      },
    },
  };
}

export default defineConfig({
  root: "src/web",
  base: "/",
  publicDir: false,
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  plugins: [preloadApp()],
  build: {
    outDir: "../../dist/web",
    emptyOutDir: true,
    assetsDir: "assets",
    modulePreload: { polyfill: false },
    target: "es2022",
    sourcemap: false,
  },
});
