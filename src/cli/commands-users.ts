// The `acphub users` commands: who may use `acphub serve` (issue 22; docs/serve.md, "Users").
import type { Command } from "commander";
import { act } from "./command-kit.js";

// Adds `users add|list|remove|role|rotate|login-link|limits` to the program.
export function addUserCommands(program: Command): void {
  const users = program
    .command("users")
    .description(
      "the hub's users (kept in the ledger): tokens, roles and web login links",
    )
    .addHelpText(
      "after",
      `
  Names: 1–64 letters, digits, ".", "_", "-" or "@", starting with a letter or digit;
  "admin" is the serve token's holder. Roles: admin, member (default), viewer.

  Examples:
    acphub users add alice --role member --json
    acphub users login-link alice --url https://hub.example.com`,
    );
  const m = () => import("./users.js");
  users
    .command("add")
    .description("add a user and print their token (once)")
    .argument("<name>", "user name")
    .option("--role <role>", "admin, member or viewer", "member")
    .option("--json", 'print {"name","role","token"}')
    .action(act(program, m, "usersAdd"));
  users
    .command("list")
    .description("list the users")
    .option("--json", "print them as JSON")
    .action(act(program, m, "usersList"));
  users
    .command("remove")
    .description(
      "remove a user; their connections and web logins close at once",
    )
    .argument("<name>", "user name")
    .option("--json", 'print {"removed": NAME}')
    .action(act(program, m, "usersRemove"));
  users
    .command("role")
    .description("change a user's role; token, shares and limits are kept")
    .argument("<name>", "user name")
    .argument("<role>", "admin, member or viewer")
    .option("--json", 'print {"name","role","previous"}')
    .action(act(program, m, "usersRole"));
  users
    .command("rotate")
    .description("give a user a new token; the old one stops working at once")
    .argument("<name>", "user name")
    .option("--json", 'print {"name","role","token"}')
    .action(act(program, m, "usersRotate"));
  users
    .command("login-link")
    .description("print a one-time web login URL for a user (15 minutes)")
    .argument("<name>", "user name")
    .option(
      "--url <url>",
      "the hub's URL (default: the one the running serve wrote, else http://127.0.0.1:8787)",
    )
    .option("--json", 'print {"name","url","expiresAt"}')
    .action(act(program, m, "usersLoginLink"));
  users
    .command("limits")
    .description(
      "show or set a user's own quotas (over config users.limits; a running hub reads them within 1 s)",
    )
    .argument("<name>", "user name")
    .option("--concurrent-turns <n>", "turns running at once")
    .option("--live-sessions <n>", "sessions open at once")
    .option("--prompts-per-minute <n>", "prompts per minute")
    .option("--prompt-bytes <n>", "bytes per prompt")
    .option("--agent-processes <n>", "agent processes at once (default 4)")
    .option("--clear", "drop the user's own limits first")
    .option("--json", 'print {"name","limits"}')
    .action(act(program, m, "usersLimits"));
  const secrets = users
    .command("secrets")
    .description("a user's secrets for their agents (encrypted in the ledger)");
  const key = [
    "<key>",
    "the secret's name (an environment variable's)",
  ] as const;
  secrets
    .command("set")
    .description("set a secret; the value from stdin or --from-file")
    .argument("<name>", "user name")
    .argument(...key)
    .option("--from-file <file>", "read the value from FILE")
    .option("--json", 'print {"user","name","updatedAt"}')
    .action(act(program, m, "secretsSet"));
  secrets
    .command("list")
    .description("a user's secrets: names and times, never values")
    .argument("<name>", "user name")
    .option("--json", 'print [{"name","updatedAt"}]')
    .action(act(program, m, "secretsList"));
  secrets
    .command("remove")
    .description("remove a secret")
    .argument("<name>", "user name")
    .argument(...key)
    .option("--json", 'print {"user","removed"}')
    .action(act(program, m, "secretsRemove"));
}

// Adds `acphub audit`.
export function addAuditCommand(program: Command): void {
  program
    .command("audit")
    .description(
      "what the hub's users did: prompts, cancels, settings, shares, logins, user changes",
    )
    .option("--since <when>", "only since then: 30m, 2h, 7d or a date")
    .option("--until <when>", "only before then: 30m (ago), 2h, 7d or a date")
    .option("--user <name>", "only this user's entries")
    .option("--session <id>", "only entries about this session")
    .option("--action <action>", "only this action: login, user.role, …")
    .option("--json", "print them as JSON")
    .action(act(program, () => import("./audit.js"), "auditCommand"));
}
