// Slash commands in `acphub chat`: acphub's own, then the agent's (from
// available_commands_update), which are sent to the agent as a prompt.
import type { Gateway } from "../app/local-client.js";
import {
  modelOption,
  sessionSettings,
  type ConfigOption,
  type Models,
  type SessionSettings,
} from "../app/session-settings.js";
import type { Style } from "./tty/ansi.js";
import { safeDeep } from "./tty/safe-text.js";

export interface SlashContext {
  gateway: Gateway;
  sessionId: string;
  style: Style;
  say: (line: string) => void;
  /** The agent's commands, as it last announced them. */
  agentCommands: () => { name: string; description?: string }[];
  exit: () => void;
}

export const HELP: [string, string][] = [
  ["/help", "this list"],
  ["/mode [ID]", "show the session's modes, or switch to one"],
  ["/model [VALUE]", "show the model option, or set it"],
  ["/config [ID VALUE]", "show the session's config options, or set one"],
  ["/sessions", "recent sessions (resume one with acphub chat --session ID)"],
  ["/cancel", "cancel the running turn (Ctrl-C does the same)"],
  ["/exit", "leave (Ctrl-C twice does the same)"],
];

function describeOption(o: ConfigOption, style: Style): string {
  const choices =
    o.options
      ?.map((c) =>
        c.value === o.currentValue ? style.bold(`*${c.value}`) : c.value,
      )
      .join(" ") ?? String(o.currentValue);
  return `  ${o.id.padEnd(14)} ${choices}`;
}

// `/model` for agents that report models (session/set_model) rather than a config option.
async function models(
  ctx: SlashContext,
  state: Models,
  value: string | undefined,
): Promise<undefined> {
  const { style, say } = ctx;
  if (!value) {
    const ids = state.availableModels.map((m) =>
      m.modelId === state.currentModelId
        ? style.bold(`*${m.modelId}`)
        : m.modelId,
    );
    say(`  ${"model".padEnd(14)} ${ids.join(" ")}`);
    return undefined;
  }
  await ctx.gateway.setModel({ sessionId: ctx.sessionId, modelId: value });
  say(`model: ${value}`);
  return undefined;
}

// Runs a slash command; returns the prompt text to send when it is the agent's own command.
export async function runSlash(
  line: string,
  ctx: SlashContext,
): Promise<string | undefined> {
  const [command = "", ...args] = line.trim().split(/\s+/);
  const { gateway, sessionId, style, say } = ctx;
  // The agent's mode and option names are shown: made terminal-safe.
  const state = async (): Promise<SessionSettings> =>
    safeDeep(await sessionSettings(gateway, sessionId));
  switch (command) {
    case "/help":
      for (const [name, what] of HELP)
        say(`  ${style.bold(name.padEnd(20))} ${what}`);
      for (const c of ctx.agentCommands())
        say(
          `  ${style.cyan(`/${c.name}`.padEnd(20))} ${c.description ?? ""} ${style.dim("(agent)")}`,
        );
      return undefined;
    case "/exit":
    case "/quit":
      ctx.exit();
      return undefined;
    case "/cancel":
      say(style.dim("no turn is running"));
      return undefined;
    case "/sessions": {
      const list = safeDeep(await gateway.listSessions({})) as {
        sessions: {
          sessionId: string;
          title: string | null;
          updatedAt: string;
        }[];
      };
      for (const s of list.sessions.slice(0, 15))
        say(
          `  ${s.sessionId === sessionId ? "*" : " "} ${s.sessionId}  ${style.dim(s.updatedAt.slice(0, 16))}  ${s.title ?? ""}`,
        );
      return undefined;
    }
    case "/mode": {
      const modes = (await state()).modes;
      if (!modes)
        return (say(style.dim("this agent offers no modes")), undefined);
      if (!args[0]) {
        for (const m of modes.availableModes)
          say(
            `  ${m.id === modes.currentModeId ? style.bold(`*${m.id}`) : ` ${m.id}`}  ${m.name ?? ""}`,
          );
        return undefined;
      }
      await gateway.setMode({ sessionId, modeId: args[0] });
      say(`mode: ${args[0]}`);
      return undefined;
    }
    case "/model":
      if ((await state()).models)
        return models(ctx, (await state()).models!, args[0]);
    // falls through: the agent describes its model as a config option
    case "/config": {
      const settings = await state();
      const options = settings.configOptions ?? [];
      const model = modelOption(settings);
      const target =
        command === "/model" ? model : options.find((o) => o.id === args[0]);
      const value = command === "/model" ? args[0] : args[1];
      if (command === "/model" && !model)
        return (say(style.dim("this agent offers no model option")), undefined);
      if (!value) {
        for (const o of command === "/model" ? [model!] : options)
          say(describeOption(o, style));
        if (options.length === 0)
          say(style.dim("this agent offers no config options"));
        return undefined;
      }
      if (!target)
        return (say(style.red(`no config option ${args[0] ?? ""}`)), undefined);
      await gateway.setConfigOption({
        sessionId,
        configId: target.id,
        value,
      });
      say(`${target.id}: ${value}`);
      return undefined;
    }
    default: {
      const name = command.slice(1);
      if (ctx.agentCommands().some((c) => c.name === name)) return line.trim();
      say(style.red(`unknown command ${command}; /help lists them`));
      return undefined;
    }
  }
}
