// The built web page's files (dist/web) with the right content type, long caching for the
// hashed assets, and the security headers every web response carries.
import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { ServerResponse } from "node:http";

/** Where `npm run build` puts the page, beside dist/server. */
export const DEFAULT_WEB_ROOT = fileURLToPath(
  new URL("../web/", import.meta.url),
);

/** No inline script or style, nothing from another host, never framed. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/** Sets the headers every web response carries. */
export function securityHeaders(res: ServerResponse): void {
  res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
}

// The file inside dir a URL path (relative to dir) names, or undefined for anything outside.
function fileFor(dir: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0")) return undefined;
  const file = normalize(join(dir, decoded));
  return file.startsWith(normalize(dir + sep)) ? file : undefined;
}

// Sends one file of the page from dir; hashed assets (dir assets/) are cached for good.
export async function sendStatic(
  res: ServerResponse,
  dir: string,
  urlPath: string,
  head: boolean,
): Promise<void> {
  const file = fileFor(dir, urlPath);
  const type = file ? TYPES[extname(file)] : undefined;
  let body: Buffer | undefined;
  if (file && type) body = await readFile(file).catch(() => undefined);
  securityHeaders(res);
  if (!body || !type) {
    const missing = urlPath === "index.html";
    res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" });
    res.end(
      missing ? "the web page is not built: run npm run build" : "not found",
    );
    return;
  }
  res.writeHead(200, {
    "Content-Type": type,
    "Content-Length": body.length,
    "Cache-Control":
      urlPath === "index.html"
        ? "no-cache"
        : "public, max-age=31536000, immutable",
  });
  res.end(head ? undefined : body);
}
