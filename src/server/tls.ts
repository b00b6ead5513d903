// The certificate and key of `acphub serve --tls-cert/--tls-key`, checked before the server
// starts: each problem names the file and what is wrong with it, instead of OpenSSL's code.
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { errorMessage, HubError } from "../shared/errors.js";

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

// Reads one of the two files, naming the option on failure.
function readPem(option: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new HubError(
      "CONFIG_INVALID",
      `cannot read ${option} ${file}: ${errorMessage(error)}`,
      { cause: error },
    );
  }
}

// Parses with `parse`, turning its OpenSSL error into one that says what the file should hold.
function parsed<T>(parse: () => T, problem: string): T {
  try {
    return parse();
  } catch (error) {
    throw new HubError(
      "CONFIG_INVALID",
      `${problem} (${errorMessage(error)})`,
      {
        cause: error,
      },
    );
  }
}

/** The pair, read and checked: a PEM certificate, a PEM private key, and the key is its own. */
export function loadTlsFiles(certFile: string, keyFile: string): TlsFiles {
  const cert = readPem("--tls-cert", certFile);
  const key = readPem("--tls-key", keyFile);
  const x509 = parsed(
    () => new X509Certificate(cert),
    `--tls-cert ${certFile} is not a PEM certificate`,
  );
  const privateKey = parsed(
    () => createPrivateKey(key),
    `--tls-key ${keyFile} is not a PEM private key (without a passphrase)`,
  );
  if (!x509.checkPrivateKey(privateKey))
    throw new HubError(
      "CONFIG_INVALID",
      `--tls-key ${keyFile} is not the private key of the certificate in --tls-cert ${certFile}`,
    );
  return { cert, key };
}
