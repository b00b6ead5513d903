// What the lab expects of each agent where real agents differ (see docs/agents.md): whether it
// asks permission at all, how a refusal ends its turn, its "allow once" option's name, and the
// mode in which it edits without asking.
import type { AgentName } from "./versions.mjs";

export interface Traits {
  /** Sends session/request_permission before writes and shell commands. */
  asks: boolean;
  /** The stop reason of a turn whose permission was refused. */
  refusalStop: "end_turn" | "cancelled";
  /** The name of its allow-once option, as a terminal shows it. */
  allowOnceName?: string;
  /** A mode in which it writes files without asking permission. */
  quietEditsMode?: string;
}

export const TRAITS: Record<AgentName, Traits> = {
  claude: {
    asks: true,
    refusalStop: "end_turn",
    allowOnceName: "Allow",
    quietEditsMode: "acceptEdits",
  },
  // codex's only refusal is "abort", which ends the whole turn.
  codex: {
    asks: true,
    refusalStop: "cancelled",
    allowOnceName: "Yes, proceed",
  },
  pi: { asks: false, refusalStop: "end_turn" },
};
