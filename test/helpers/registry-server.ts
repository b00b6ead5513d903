// A registry served on 127.0.0.1 for the registry client's tests: files by path (registry.json,
// archives), replaceable between steps; and archives built byte by byte, hostile ones included.
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

export interface RegistryServer {
  url: (path: string) => string;
  files: Map<string, Buffer>;
  close: () => Promise<void>;
}

// Serves `files` (path → bytes); anything else is a 404.
export async function serveRegistry(): Promise<RegistryServer> {
  const files = new Map<string, Buffer>();
  const server: Server = createServer((req, res) => {
    const body = files.get(req.url ?? "");
    if (!body) return void res.writeHead(404).end("not found");
    res.writeHead(200, { "content-length": body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    files,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export const sha256 = (b: Buffer) =>
  createHash("sha256").update(b).digest("hex");

export interface TarItem {
  name: string;
  /** "0" file, "5" folder, "2" symlink, "1" hard link. */
  type?: "0" | "5" | "2" | "1";
  body?: string;
  link?: string;
  mode?: number;
}

// One ustar header block.
function header(item: TarItem, size: number): Buffer {
  const h = Buffer.alloc(512);
  h.write(item.name, 0, 100, "utf8");
  h.write(`${(item.mode ?? 0o644).toString(8).padStart(7, "0")}\0`, 100);
  h.write("0000000\0", 108);
  h.write("0000000\0", 116);
  h.write(`${size.toString(8).padStart(11, "0")}\0`, 124);
  h.write("00000000000\0", 136);
  h.write(item.type ?? "0", 156);
  if (item.link) h.write(item.link, 157, 100, "utf8");
  h.write("ustar\0", 257);
  h.write("00", 263);
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return h;
}

// A .tar.gz holding exactly these items, paths and links as given (no tool rewrites them).
export function tarGz(items: TarItem[]): Buffer {
  const blocks: Buffer[] = [];
  for (const item of items) {
    const body = Buffer.from(item.body ?? "");
    blocks.push(
      header(item, body.length),
      body,
      Buffer.alloc((512 - (body.length % 512)) % 512),
    );
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

// This machine's platform key in the registry's terms.
export function platformKey(): string {
  const os = { linux: "linux", darwin: "darwin", win32: "windows" }[
    process.platform as string
  ];
  const arch = { x64: "x86_64", arm64: "aarch64" }[process.arch as string];
  return `${os}-${arch}`;
}
