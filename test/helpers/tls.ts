// TLS for tests of `acphub serve --tls-cert/--tls-key`: a self-signed pair made at test time
// with openssl (Node cannot make X.509 certificates), and clients that trust only that
// certificate: a `ws` WebSocket and a fetch over node:https for the SDK's HTTP client.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { Readable } from "node:stream";
import WebSocket from "ws";

export interface TestCert {
  certFile: string;
  keyFile: string;
  /** The certificate in PEM: the only CA the test clients trust. */
  ca: string;
}

/** A one-day self-signed certificate for 127.0.0.1 and localhost, written into `dir`. */
export function makeCert(dir: string): TestCert {
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=acphub test",
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "-keyout",
      keyFile,
      "-out",
      certFile,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  return { certFile, keyFile, ca: readFileSync(certFile, "utf8") };
}

/** A `ws` WebSocket class that trusts `ca`, for the SDK's WebSocket client. */
export function trustingWebSocket(ca: string): unknown {
  return class extends WebSocket {
    constructor(
      url: string,
      protocols?: string | string[],
      options?: WebSocket.ClientOptions,
    ) {
      super(url, protocols, { ...options, ca });
    }
  };
}

/** A fetch over node:https that trusts `ca` (Node 20's fetch takes no CA of its own). */
export function trustingFetch(ca: string): typeof fetch {
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
      const req = request(
        String(input instanceof Request ? input.url : input),
        {
          method: init?.method ?? "GET",
          headers,
          ca,
          signal: init?.signal ?? undefined,
        },
        (res) => {
          const out = new Headers();
          for (const [k, v] of Object.entries(res.headers))
            for (const one of [v ?? []].flat()) out.append(k, one);
          const nobody = res.statusCode === 204 || res.statusCode === 304;
          if (nobody) res.resume();
          resolve(
            new Response(
              nobody
                ? null
                : (Readable.toWeb(res) as ReadableStream<Uint8Array>),
              { status: res.statusCode ?? 0, headers: out },
            ),
          );
        },
      );
      req.on("error", reject);
      const body = init?.body;
      req.end(
        typeof body === "string" || body instanceof Uint8Array
          ? body
          : undefined,
      );
    });
}
