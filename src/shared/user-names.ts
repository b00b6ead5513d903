// The one rule for a hub user's name (issue 34, item 9), used wherever a name is accepted
// (`acphub users add`, a trusted proxy's user header): 1–64 ASCII letters, digits, ".", "_",
// "-", "@", starting with a letter or digit; never a built-in name; never a name that reads like
// a built-in one or like an existing user (same letters after Unicode NFKC, dropping invisible
// characters and spaces, ignoring case, and folding look-alikes such as 0/o, 1/l/I, rn/m).

/** Allowed user names: 1–64 of letters, digits, `.`, `_`, `-`, `@`, starting with a letter or digit. */
export const USER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** Names acphub itself uses, and why: no user may take them or a name that reads like them. */
const RESERVED: Record<string, string> = {
  admin: `"admin" is the serve token's holder (the built-in admin)`,
  cli: `"cli" is how older audit entries name \`acphub users\` commands`,
  acphub: `"acphub" is the hub's own name`,
};
export const RESERVED_USER_NAMES: readonly string[] = Object.keys(RESERVED);

/** What the name rule says, for error messages and the docs. */
export const USER_NAME_RULE =
  'use 1–64 letters (a–z, A–Z), digits, ".", "_", "-" or "@", starting with a letter or digit';

// Characters that look alike in most fonts, folded to one after lower-casing.
const LOOK_ALIKES: [RegExp, string][] = [
  [/rn/g, "m"],
  [/vv/g, "w"],
  [/[0]/g, "o"],
  [/[1i|!]/g, "l"],
  [/[5]/g, "s"],
  [/[._-]+/g, "."],
];

// The form two names share when a reader could take one for the other.
export function nameLookalikeKey(name: string): string {
  let key = name
    .normalize("NFKC")
    .replace(/[\p{Default_Ignorable_Code_Point}\p{White_Space}\p{Cc}]/gu, "")
    .toLowerCase()
    .normalize("NFKC");
  for (const [from, to] of LOOK_ALIKES) key = key.replace(from, to);
  return key;
}

// Why a new user may not take this name (undefined: it may); `existing` are the users there are.
export function userNameProblem(
  name: string,
  existing: Iterable<string> = [],
): string | undefined {
  const shown = JSON.stringify(name);
  if (!USER_NAME_PATTERN.test(name))
    return `invalid user name ${shown}: ${USER_NAME_RULE}`;
  const key = nameLookalikeKey(name);
  const reserved = RESERVED_USER_NAMES.find((r) => nameLookalikeKey(r) === key);
  if (reserved !== undefined)
    return reserved === name
      ? `user name ${shown} is reserved: ${RESERVED[reserved]}; pick another name`
      : `user name ${shown} reads like the reserved name "${reserved}"; pick a name that differs by more than case or look-alike letters`;
  for (const other of existing)
    if (other !== name && nameLookalikeKey(other) === key)
      return `user name ${shown} reads like the existing user ${JSON.stringify(other)}; pick a name that differs by more than case or look-alike letters`;
  return undefined;
}
