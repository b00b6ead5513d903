// `acphub editors config` follow-ups (issue 40): an editor name acphub does not know is refused
// naming the closest one it sets up (vim → neovim, a JetBrains IDE → jetbrains) and the list,
// writing nothing; Zed installed from Flathub has its settings under ~/.var/app/dev.zed.Zed, used
// when that file exists and the usual ~/.config/zed/settings.json does not.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { mockConfig } from "../helpers/editor.js";
import { tempDir } from "../helpers/mock.js";
import { parseJsonc } from "../../src/app/jsonc.js";

const usual = (home: string) => join(home, ".config", "zed", "settings.json");
const flatpak = (home: string) =>
  join(home, ".var", "app", "dev.zed.Zed", "config", "zed", "settings.json");

// A home whose config's default agent is the mock (HOME is the same folder in runCli).
function setup(): string {
  const home = tempDir();
  mockConfig(home);
  return home;
}

describe(
  "acphub editors config: names and Zed's Flatpak",
  { timeout: 60_000 },
  () => {
    it("an unknown editor gets the closest one acphub sets up, and the list", async () => {
      const home = setup();
      const cases: [string, string][] = [
        ["vim", "neovim"],
        ["nvim", "neovim"],
        ["Neovim", "neovim"],
        ["zedd", "zed"],
        ["pycharm", "jetbrains"],
      ];
      for (const [typed, meant] of cases) {
        const r = await runCli(["editors", "config", typed, "--write"], {
          home,
        });
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(
          `unknown editor ${typed}: one of zed, jetbrains, neovim (did you mean "${meant}"?)`,
        );
      }
      // Nothing near: the list alone, no guess.
      const far = await runCli(["editors", "config", "emacs"], { home });
      expect(far.stderr).toContain(
        "unknown editor emacs: one of zed, jetbrains, neovim",
      );
      expect(far.stderr).not.toContain("did you mean");
      expect(existsSync(join(home, ".config"))).toBe(false);
    });

    it("uses Zed's Flatpak settings when they exist and the usual file does not", async () => {
      if (process.platform !== "linux") return; // Flatpak is Linux's
      const home = setup();
      mkdirSync(dirname(flatpak(home)), { recursive: true });
      writeFileSync(flatpak(home), '{\n  // mine\n  "theme": "Ayu Dark",\n}\n');
      const printed = await runCli(["editors", "config", "zed"], { home });
      expect(printed.code).toBe(0);
      expect(printed.stderr).toContain(flatpak(home));

      const r = await runCli(["editors", "config", "zed", "--write"], { home });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`updated ${flatpak(home)}`);
      const doc = parseJsonc(readFileSync(flatpak(home), "utf8"), "x")
        .value as {
        theme: string;
        agent_servers: Record<string, unknown>;
      };
      expect(doc.theme).toBe("Ayu Dark");
      expect(Object.keys(doc.agent_servers)).toEqual(["acphub mock"]);
      expect(
        readdirSync(dirname(flatpak(home))).some((f) =>
          f.includes("acphub-backup"),
        ),
      ).toBe(true);
      expect(existsSync(usual(home))).toBe(false);

      // Both present: the usual file is Zed's own.
      mkdirSync(dirname(usual(home)), { recursive: true });
      writeFileSync(usual(home), "{}\n");
      const both = await runCli(["editors", "config", "zed", "--json"], {
        home,
      });
      expect((JSON.parse(both.stdout) as { file: string }).file).toBe(
        usual(home),
      );
    });
  },
);
