// The origins a server calls its own: the address it listens on, and for loopback the other
// loopback names. Never derived from the request's Host header (DNS rebinding would pass).
const LOOPBACK = ["127.0.0.1", "localhost", "[::1]"];

export function isLoopback(host: string): boolean {
  return (
    host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host)
  );
}

export function ownOrigins(
  scheme: string,
  host: string,
  port: number,
): string[] {
  const names = isLoopback(host)
    ? [...LOOPBACK, host.includes(":") ? `[${host}]` : host]
    : [host.includes(":") ? `[${host}]` : host];
  return [...new Set(names)].map((h) => `${scheme}://${h}:${port}`);
}
