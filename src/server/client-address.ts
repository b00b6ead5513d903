// Who a request comes from when acphub runs behind a reverse proxy (serve.trustedProxies): from
// a trusted peer, the client's address is the right-most one of `Forwarded`'s `for=` (else of
// X-Forwarded-For) that is not itself a trusted proxy, and the scheme and host the browser used
// are the proxy's `proto=`/`host=` (else X-Forwarded-Proto/-Host). From any other peer these
// headers mean nothing: its own address is the client's, so no client can choose its address.
// Each request is resolved once (http-server.ts); every per-address bound, lock-out, log line,
// audit entry and cookie decision reads the one answer through `clientOf`.
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { AddressRanges, plainAddress } from "../shared/address-ranges.js";

/** The client of one request, as far as the trusted proxies say. */
export interface Client {
  /** Its IP address (the TCP peer's when no trusted proxy names another). */
  address: string;
  /** The scheme the browser used: the proxy's when it is trusted, else the socket's. */
  scheme: "http" | "https";
  /** The host (and port) the browser used: the proxy's when trusted, else the Host header. */
  host: string | undefined;
  /** True when a trusted proxy named the address. */
  forwarded: boolean;
}

interface Hop {
  for: string | undefined;
  proto?: string;
  host?: string;
}

const resolved = new WeakMap<IncomingMessage, Client>();

/** The request's client: as resolved when it arrived, else its TCP peer. */
export function clientOf(req: IncomingMessage): Client {
  return resolved.get(req) ?? direct(req);
}

// The request as its TCP peer sent it (no proxy believed).
function direct(req: IncomingMessage): Client {
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  return {
    address: plainAddress(req.socket.remoteAddress ?? "unknown"),
    scheme: encrypted ? "https" : "http",
    host: req.headers.host,
    forwarded: false,
  };
}

/** Resolves each request's client against the trusted proxies (none: every peer is a client). */
export class ClientResolver {
  private readonly trusted: AddressRanges;

  constructor(trustedProxies: readonly string[] = []) {
    this.trusted = new AddressRanges(trustedProxies);
  }

  /** True when the address is one of the trusted proxies. */
  isTrusted(address: string | undefined): boolean {
    return this.trusted.has(address);
  }

  // The request's client, resolved once and kept for every later reader.
  resolve(req: IncomingMessage): Client {
    const known = resolved.get(req);
    if (known) return known;
    const client = direct(req);
    if (this.trusted.has(client.address)) this.walk(client, hopsOf(req));
    resolved.set(req, client);
    return client;
  }

  // From the nearest hop outwards, while the hop that told us is a trusted proxy: a word that is
  // no IP address (`unknown`, an obfuscated name) ends the walk at the last proxy that named it.
  private walk(client: Client, hops: Hop[]): void {
    for (let i = hops.length - 1; i >= 0; i--) {
      if (!this.trusted.has(client.address)) return;
      const hop = hops[i]!;
      if (hop.for === undefined) return;
      client.address = hop.for;
      client.forwarded = true;
      if (hop.proto === "http" || hop.proto === "https")
        client.scheme = hop.proto;
      if (hop.host !== undefined) client.host = hop.host;
    }
  }
}

// The hops the headers record, the client's first: `Forwarded` (RFC 7239) when present, else
// X-Forwarded-For with the right-most X-Forwarded-Proto/-Host on its nearest hop.
function hopsOf(req: IncomingMessage): Hop[] {
  const standard = headerText(req, "forwarded");
  if (standard !== undefined) return standard.split(",").map(forwardedHop);
  const xff = headerText(req, "x-forwarded-for");
  if (xff === undefined) return [];
  const hops: Hop[] = xff.split(",").map((w) => ({ for: ipOf(w) }));
  const last = hops[hops.length - 1]!;
  const proto = lastWord(headerText(req, "x-forwarded-proto"));
  const host = lastWord(headerText(req, "x-forwarded-host"));
  if (proto !== undefined) last.proto = proto.toLowerCase();
  if (host !== undefined && HOST.test(host)) last.host = host;
  return hops;
}

/** A host as a browser's Host header carries it: a name or address, and a port. */
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

// One element of a `Forwarded` header: `for=…;proto=…;host=…` (quoted or not).
function forwardedHop(element: string): Hop {
  const hop: Hop = { for: undefined };
  for (const pair of element.split(";")) {
    const at = pair.indexOf("=");
    const key = pair.slice(0, at).trim().toLowerCase();
    const value = pair
      .slice(at + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1");
    if (key === "for") hop.for = ipOf(value);
    else if (key === "proto") hop.proto = value.toLowerCase();
    else if (key === "host" && HOST.test(value)) hop.host = value;
  }
  return hop;
}

// The IP address a header word names (`1.2.3.4`, `1.2.3.4:5678`, `[::1]:5678`, `::1`), if any.
function ipOf(word: string): string | undefined {
  const w = word.trim();
  const bracketed = /^\[([^\]]+)\](:\d+)?$/.exec(w)?.[1];
  const candidate =
    bracketed ?? w.replace(/^(\d{1,3}(\.\d{1,3}){3}):\d+$/, "$1");
  return isIP(candidate) === 0 ? undefined : plainAddress(candidate);
}

// A header's text, its repeats joined as one list.
function headerText(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(",") : v;
}

const lastWord = (list: string | undefined) =>
  list
    ?.split(",")
    .map((w) => w.trim())
    .filter(Boolean)
    .pop();

/** Whether the hub's cookies get `Secure`: configured so (its TLS, an https publicUrl), or the
 *  browser reached a trusted proxy over HTTPS. */
export const secureFor = (req: IncomingMessage, configured: boolean) =>
  configured || clientOf(req).scheme === "https";
