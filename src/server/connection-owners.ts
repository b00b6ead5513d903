// Which user opened each Streamable HTTP connection (issue 22): a later request naming that
// connection's id from another user is answered as if the id did not exist.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HubUser } from "../contracts/users.js";

const HEADER = "acp-connection-id";

export class ConnectionOwners {
  private readonly owners = new Map<string, string>();

  constructor(private readonly max: number) {}

  // False when the request names a connection another user opened.
  allows(req: IncomingMessage, user: HubUser): boolean {
    const id = req.headers[HEADER];
    if (typeof id !== "string") return true;
    const owner = this.owners.get(id);
    if (owner !== undefined && req.method === "DELETE" && owner === user.name)
      this.owners.delete(id);
    return owner === undefined || owner === user.name;
  }

  // Remembers the owner of the connection an initialize opens (its id is in the response).
  watch(req: IncomingMessage, res: ServerResponse, user: HubUser): void {
    if (req.method !== "POST" || req.headers[HEADER] !== undefined) return;
    res.once("finish", () => {
      const id = res.getHeader(HEADER);
      if (typeof id !== "string") return;
      this.owners.set(id, user.name);
      while (this.owners.size > this.max)
        this.owners.delete(this.owners.keys().next().value as string);
    });
  }
}
