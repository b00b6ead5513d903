// Where `acphub serve` keeps the web page's logins (issue 38): one-time login codes and browser
// sessions, each under the SHA-256 of its secret (never the secret), with its user and the stamp
// of that user's credentials when it was made. A single hub keeps them in its state folder
// (server/web-login-file.ts); the nodes of a cluster share them in PostgreSQL
// (ledger/postgres/pg-web-logins.ts), so a browser logged in on one node is logged in on all.

/** A login code or a browser session as kept. */
export interface WebLogin {
  user: string;
  /** The user's credentials' generation when it was made (user-directory.ts `stampOf`). */
  stamp: string;
  /** ms since the epoch. */
  expiresAt: number;
}

/** What a login is: a one-time code, or a browser session (a cookie). */
export type WebLoginKind = "code" | "session";

export interface WebLoginStore {
  /** Keeps a login under the hash of its secret. */
  put(kind: WebLoginKind, keyHash: string, login: WebLogin): Promise<void>;
  /** An unexpired login, left in place. */
  get(
    kind: WebLoginKind,
    keyHash: string,
    now: number,
  ): Promise<WebLogin | undefined>;
  /** Spends a login: deleted and returned by the first caller only, whichever node asks. */
  take(
    kind: WebLoginKind,
    keyHash: string,
    now: number,
  ): Promise<WebLogin | undefined>;
  /** Forgets one login (a logout). */
  delete(kind: WebLoginKind, keyHash: string): Promise<void>;
  /** Forgets every login of a user (removed, or given a new token). */
  deleteUser(user: string): Promise<void>;
}
