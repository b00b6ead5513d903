// The origins a server calls its own: every address it can be reached at — the one it listens
// on; for loopback the other loopback names; for a wildcard bind (0.0.0.0, ::) each local
// interface's address, the hostname and localhost — plus the public URL a proxy serves it
// under. Never derived from the request's Host header (DNS rebinding would pass).
import { hostname, networkInterfaces } from "node:os";

const LOOPBACK = ["127.0.0.1", "localhost", "[::1]"];

export function isLoopback(host: string): boolean {
  return (
    host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host)
  );
}

/** True for an address that means "every interface". */
export function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "";
}

const bracket = (h: string) => (h.includes(":") ? `[${h}]` : h);

// The addresses of the local interfaces a wildcard bind answers on (IPv6 ones only for "::").
function interfaceAddresses(host: string): string[] {
  const all = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
  return all
    .filter((a) => a.family === "IPv4" || (host === "::" && !a.scopeid))
    .map((a) => bracket(a.address));
}

export function ownOrigins(
  scheme: string,
  host: string,
  port: number,
  publicUrl?: string,
): string[] {
  const names = isWildcard(host)
    ? [...LOOPBACK, ...interfaceAddresses(host), hostname()]
    : isLoopback(host)
      ? [...LOOPBACK, bracket(host)]
      : [bracket(host)];
  const origins = names.map((h) => `${scheme}://${h}:${port}`.toLowerCase());
  if (publicUrl) origins.push(new URL(publicUrl).origin.toLowerCase());
  return [...new Set(origins)];
}

/** The URL a browser on this machine can open: a wildcard bind is reached through loopback. */
export function reachableUrl(scheme: string, host: string, port: number) {
  const name = isWildcard(host)
    ? host === "::"
      ? "[::1]"
      : "127.0.0.1"
    : bracket(host);
  return `${scheme}://${name}:${port}`;
}
