// Text an agent could send to take over the user's terminal, what must never reach it live, and
// how acphub shows it instead (ESC as `^[`, BEL as `^G`, C1 as U+FFFD, CR dropped).

export const EVIL =
  "\x1b]0;pwned\x07 \x1b[2J \x1b[31mRED \x9b2J \x1bP1$qm\x1b\\ harmless\rEVIL";

/** Live sequences and controls as they would reach the terminal from the agent. */
export const LIVE = [
  "\x1b]",
  "\x1b[2J",
  "\x1b[31mRED",
  "\x1bP",
  "\u009b",
  "\rEVIL",
  "\x07",
];

/** EVIL as acphub shows it. */
export const INERT =
  "^[]0;pwned^G ^[[2J ^[[31mRED \ufffd2J ^[P1$qm^[\\ harmlessEVIL";

/** Any control character but newline and tab. */
// eslint-disable-next-line no-control-regex -- looking for control characters
export const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
