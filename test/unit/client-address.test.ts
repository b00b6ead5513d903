// serve.trustedProxies' reading of the forwarding headers (server/client-address.ts), on requests
// as node:http gives them: which address is the client's, and which scheme and host it used.
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { ClientResolver } from "../../src/server/client-address.js";

// A request as node:http hands it over: its peer, and its headers (lower-case names).
const req = (peer: string, headers: Record<string, string> = {}) =>
  ({
    socket: { remoteAddress: peer },
    headers: { host: "127.0.0.1:8787", ...headers },
  }) as unknown as IncomingMessage;

const resolver = new ClientResolver(["127.0.0.1", "10.9.0.0/16", "fd00::/8"]);
const address = (peer: string, headers: Record<string, string>) =>
  resolver.resolve(req(peer, headers)).address;

describe("the client behind trusted proxies", () => {
  it("is the right-most X-Forwarded-For address that is no trusted proxy", () => {
    expect(address("127.0.0.1", { "x-forwarded-for": "10.0.0.1" })).toBe(
      "10.0.0.1",
    );
    expect(
      address("127.0.0.1", {
        "x-forwarded-for": "6.6.6.6, 10.0.0.1, 10.9.1.1",
      }),
    ).toBe("10.0.0.1");
    expect(address("::ffff:127.0.0.1", { "x-forwarded-for": "10.0.0.1" })).toBe(
      "10.0.0.1",
    );
    // Every hop trusted: the left-most is the client.
    expect(
      address("127.0.0.1", { "x-forwarded-for": "10.9.2.2, 10.9.1.1" }),
    ).toBe("10.9.2.2");
  });

  it("reads Forwarded first, with ports, quotes and IPv6 brackets", () => {
    expect(
      address("127.0.0.1", {
        forwarded: 'for="[2001:db8::17]:4711";proto=https, for=10.9.3.3',
        "x-forwarded-for": "6.6.6.6",
      }),
    ).toBe("2001:db8::17");
    expect(address("127.0.0.1", { forwarded: "for=10.0.0.4:5000" })).toBe(
      "10.0.0.4",
    );
  });

  it("stops at a word that is no address, at the proxy that wrote it", () => {
    expect(address("127.0.0.1", { "x-forwarded-for": "unknown" })).toBe(
      "127.0.0.1",
    );
    expect(
      address("127.0.0.1", { forwarded: "for=_hidden, for=10.9.4.4" }),
    ).toBe("10.9.4.4");
  });

  it("ignores every header from a peer that is no trusted proxy", () => {
    const client = resolver.resolve(
      req("10.0.0.50", {
        "x-forwarded-for": "1.2.3.4",
        "x-forwarded-proto": "https",
        "x-forwarded-host": "evil.example:1",
      }),
    );
    expect(client).toEqual({
      address: "10.0.0.50",
      scheme: "http",
      host: "127.0.0.1:8787",
      forwarded: false,
    });
    expect(
      new ClientResolver().resolve(
        req("127.0.0.1", { "x-forwarded-for": "1.2.3.4" }),
      ).address,
    ).toBe("127.0.0.1");
  });

  it("takes the scheme and host the nearest trusted proxy names", () => {
    const client = resolver.resolve(
      req("127.0.0.1", {
        "x-forwarded-for": "10.0.0.1",
        "x-forwarded-proto": "http, https",
        "x-forwarded-host": "hub.example.com:8443",
      }),
    );
    expect(client).toMatchObject({
      scheme: "https",
      host: "hub.example.com:8443",
    });
    // A host that is no host:port is not taken.
    expect(
      resolver.resolve(
        req("127.0.0.1", {
          "x-forwarded-for": "10.0.0.1",
          "x-forwarded-host": "a b",
        }),
      ).host,
    ).toBe("127.0.0.1:8787");
  });
});
