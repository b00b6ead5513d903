// Who may open one more ACP connection (issue 34, item 12): at most `maxConnections` in all,
// the last `adminConnections` of them for admins only, and at most `maxConnectionsPerUser` for
// each member or viewer — so one user's many sockets leave room for the others and the admin.
import type { HubUser } from "../contracts/users.js";
import type { ServerLimits } from "./limits.js";

type Caps = Pick<
  ServerLimits,
  "maxConnections" | "maxConnectionsPerUser" | "adminConnections"
>;

// Why `user` may not open another connection now (undefined: they may).
export function connectionRefusal(
  caps: Caps,
  user: HubUser,
  open: number,
  openOfUser: number,
): string | undefined {
  if (open >= caps.maxConnections) return "too many connections";
  if (user.role === "admin") return undefined;
  if (openOfUser >= caps.maxConnectionsPerUser)
    return `too many connections for user ${user.name} (serve.maxConnectionsPerUser: ${caps.maxConnectionsPerUser})`;
  const reserved = Math.min(caps.adminConnections, caps.maxConnections - 1);
  if (open >= caps.maxConnections - reserved)
    return `too many connections (the last ${reserved} are kept for admins)`;
  return undefined;
}
