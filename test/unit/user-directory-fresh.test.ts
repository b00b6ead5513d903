// A user added by `acphub users add` in another process is known to a running hub at their
// first request, not only at the directory's next poll: a token no known user holds has the
// users read again before the request is judged (CI once saw a 401 for a user added a moment
// before, between two polls).
import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { userStoreOf } from "../../src/ledger/open.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { UserDirectory } from "../../src/server/user-directory.js";
import { silentLogger } from "../../src/shared/logger.js";
import { hashSecret, newSecret } from "../../src/shared/user-token.js";
import { tempDir } from "../helpers/mock.js";

const ledger = new SqliteLedger(join(tempDir("acphub-users-fresh-"), "l.db"));
afterAll(() => ledger.close());

const requestWith = (token: string) =>
  ({
    headers: { authorization: `Bearer ${token}` },
    socket: { remoteAddress: "127.0.0.1" },
  }) as unknown as IncomingMessage;

it("knows a user added after the last poll at their first request", async () => {
  const store = userStoreOf(ledger);
  const directory = new UserDirectory({
    serveToken: newSecret(),
    store,
    pollMs: 3_600_000,
    logger: silentLogger(),
  });
  await directory.start();
  try {
    const token = newSecret();
    await store.addUser({
      name: "carol",
      role: "member",
      tokenHash: hashSecret(token),
      createdAt: Date.now(),
      limits: null,
    });
    const req = requestWith(token);
    await directory.prepare(req);
    expect(directory.identify(req)?.name).toBe("carol");
    // A token nobody holds is still nobody after the fresh read.
    const stranger = requestWith(newSecret());
    await directory.prepare(stranger);
    expect(directory.identify(stranger)).toBeUndefined();
  } finally {
    directory.stop();
  }
});
