// `acphub chat`'s line history, kept in the state folder (known secrets masked), newest first.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SecretMasker } from "../shared/secrets.js";

export interface ChatHistory {
  lines: string[];
  save(lines: string[]): void;
}

// The history of this state folder; `save` replaces it.
export function chatHistory(stateDir: string): ChatHistory {
  const file = join(stateDir, "chat_history");
  const history: ChatHistory = {
    lines: existsSync(file)
      ? readFileSync(file, "utf8").split("\n").filter(Boolean).reverse()
      : [],
    save: (lines) => {
      history.lines = lines;
      mkdirSync(stateDir, { recursive: true });
      const masker = SecretMasker.fromEnv(process.env);
      writeFileSync(file, masker.mask([...lines].reverse().join("\n")) + "\n", {
        mode: 0o600,
      });
    },
  };
  return history;
}
