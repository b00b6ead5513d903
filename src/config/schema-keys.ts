// The keys the config schema allows at a path, so that an unknown key can be answered with
// the key that was probably meant.
import { keysAt } from "../shared/schema-keys.js";
import { configSchema } from "./schema.js";

export function allowedKeysAt(path: readonly PropertyKey[]): string[] {
  return keysAt(configSchema, path);
}
