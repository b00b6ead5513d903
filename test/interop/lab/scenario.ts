// The lab's scenario, as prompts for the fake model: every path (run, acp, chat) plays these turns.
// A new scenario adds a prompt here and a step in the path's test (session-methods: set_model,
// set_mode, fork).
import { join } from "node:path";

export const TOKENS = {
  one: "TOKEN-ONE",
  two: "TOKEN-TWO",
  four: "TOKEN-FOUR",
  model: "TOKEN-MODEL",
  fork: "TOKEN-FORK",
};
export const FILE_CONTENT = "HELLO-FROM-THE-LAB";
export const SHELL_TOKEN = "SHELL-OK";

/** Turn 1: streamed text. */
export const turnText = () => `Say hello. [[reply ${TOKENS.one}]]`;

/** Turn 2: write a file, read it back, run a shell line that makes a second file. */
export function turnTools(work: string): string {
  const file = join(work, "hello.txt");
  return [
    `Write, read, run.`,
    `[[write ${file}|${FILE_CONTENT}]]`,
    `[[read ${file}]]`,
    `[[shell echo ${SHELL_TOKEN} && touch ${join(work, "made-by-shell")}]]`,
    `[[reply ${TOKENS.two}]]`,
  ].join(" ");
}

/** Turn 3: a slow stream, to be cancelled. */
export const turnSlow = () => `Take your time. [[slow]]`;

/** Turn 4, after acphub was killed and the session loaded again. */
export const turnAfterRestart = () => `Still there? [[reply ${TOKENS.four}]]`;

/** After session/set_model: the next prompt goes to the chosen model. */
export const turnModel = () => `Which model? [[reply ${TOKENS.model}]]`;

/** The first prompt of a fork (its context has the parent's turns). */
export const turnFork = () => `Forked. [[reply ${TOKENS.fork}]]`;

/** A write, in a mode that lets the agent edit without asking. */
export const turnQuietWrite = (work: string) =>
  `Write quietly. [[write ${join(work, "quiet.txt")}|${FILE_CONTENT}]] [[reply ${TOKENS.four}]]`;

export const FILES = (work: string) => [
  join(work, "hello.txt"),
  join(work, "made-by-shell"),
];
