// The admin page's requests (issue 38): users, login links, quotas, usage against budgets, the
// audit log and the nodes. The hub only decides who asks and whose usage they may read; the
// work is the command line's own, in app/ (app/admin-services.ts), given as `AdminServices`.
import type { Actor, HubUser } from "../contracts/users.js";
import type { Params } from "../protocol/raw.js";
import { HubError } from "../shared/errors.js";
import type {
  AddedUser,
  AdminUser,
  AuditPage,
  LoginLinkAnswer,
  NodesAnswer,
  UsageAnswer,
} from "../shared/admin-answers.js";
import { HUB_METHOD } from "../shared/hub-extension.js";

/** The app's functions behind the admin page's methods (the CLI commands call the same). */
export interface AdminServices {
  listUsers(): Promise<{ users: AdminUser[] }>;
  addUser(by: Actor, params: Params): Promise<AddedUser>;
  removeUser(by: Actor, params: Params): Promise<{ removed: string }>;
  loginLink(by: Actor, params: Params): Promise<LoginLinkAnswer>;
  limits(by: Actor, params: Params): Promise<unknown>;
  /** The usage of these users in their budgets' periods; all: every user with usage or a budget. */
  usage(users: string[] | "all"): Promise<UsageAnswer>;
  audit(params: Params): Promise<AuditPage>;
  nodes(): Promise<NodesAnswer>;
}

type AdminCall = (
  admin: AdminServices,
  by: Actor,
  params: Params,
) => Promise<unknown>;

const M = HUB_METHOD;

/** The admin methods (their caller, `admin`, is checked before these run). */
export const ADMIN_CALLS: Readonly<Record<string, AdminCall>> = {
  [M.usersList]: (admin) => admin.listUsers(),
  [M.usersAdd]: (admin, by, params) => admin.addUser(by, params),
  [M.usersRemove]: (admin, by, params) => admin.removeUser(by, params),
  [M.usersLogin]: (admin, by, params) => admin.loginLink(by, params),
  [M.usersLimits]: (admin, by, params) => admin.limits(by, params),
  [M.audit]: (admin, _by, params) => admin.audit(params),
  [M.nodes]: (admin) => admin.nodes(),
};

// The services, or the refusal of a hub that keeps no users (nothing to administer there).
export function adminOf(admin: AdminServices | undefined): AdminServices {
  if (!admin) throw new HubError("UNSUPPORTED", "this hub keeps no users");
  return admin;
}

// Who acted, as the audit log spells it: the user's name, or "admin" for the serve token's.
export function actorOf(user: HubUser | undefined): Actor {
  return { user: user?.name ?? "admin", via: "hub" };
}

// `_acphub/usage`: an admin reads anyone's (all, or the one named); a member or viewer only
// their own, and naming another user is refused.
export function usageFor(
  admin: AdminServices,
  user: HubUser | undefined,
  params: Params,
): Promise<UsageAnswer> {
  const named = params["user"];
  if (named !== undefined && (typeof named !== "string" || named === ""))
    throw new HubError("USAGE", `${M.usage} takes {user?}: a user's name`);
  if (!user || user.role === "admin")
    return admin.usage(named === undefined ? "all" : [named]);
  if (named !== undefined && named !== user.name)
    throw new HubError(
      "PERMISSION_DENIED",
      `only an admin may read another user's usage (${M.usage})`,
    );
  return admin.usage([user.name]);
}
