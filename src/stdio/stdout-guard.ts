// In `acphub acp`, stdout carries only protocol frames. The guard keeps the real write for the
// protocol and sends any other write to stdout (a dependency's console.log) to stderr instead.
import type { Logger } from "../shared/logger.js";

export interface ProtocolOut {
  write(bytes: Uint8Array): Promise<void>;
}

export function guardStdout(logger: Logger): ProtocolOut {
  const stdout = process.stdout;
  const realWrite = stdout.write.bind(stdout);
  let warned = false;
  stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (!warned) {
      warned = true;
      logger.warn(
        "a stray write to stdout was redirected to stderr (stdout carries the protocol)",
      );
    }
    return (process.stderr.write as (...args: unknown[]) => boolean)(
      chunk,
      ...rest,
    );
  }) as typeof stdout.write;
  return {
    write: (bytes) =>
      new Promise<void>((resolve, reject) => {
        realWrite(bytes, (error) => (error ? reject(error) : resolve()));
      }),
  };
}
