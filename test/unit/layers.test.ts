// The layers of docs/architecture.md are enforced by lint: an import against the table in
// eslint.layers.js and an import cycle (type-only included) each fail.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ESLint } from "eslint";
import importX, { createNodeResolver } from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import { LAYERS, layerZones } from "../../eslint.layers.js";
import { tempDir } from "../helpers/temp-dirs.js";

const root = join(import.meta.dirname, "..", "..");

// ESLint with only the layer rule, as eslint.config.js sets it up for src/.
function layerLinter(): ESLint {
  return new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ["**/*.ts"],
        languageOptions: { parser: tseslint.parser },
        plugins: { "import-x": importX },
        settings: {
          "import-x/resolver-next": [
            createNodeResolver({
              extensions: [".ts", ".tsx", ".js"],
              extensionAlias: { ".js": [".ts", ".tsx", ".js"] },
            }),
          ],
        },
        rules: {
          "import-x/no-restricted-paths": ["error", { zones: layerZones() }],
        },
      },
    ],
  });
}

async function layerErrors(file: string, text: string): Promise<string[]> {
  const [result] = await layerLinter().lintText(text, {
    filePath: join(root, file),
  });
  return (result?.messages ?? []).map((m) => m.message);
}

describe("layers", () => {
  it("refuses an import up or sideways, allows one down", async () => {
    expect(
      await layerErrors(
        "src/shared/zz-probe.ts",
        'import { installed } from "../agents/registry.js";\nexport const x = installed;\n',
      ),
    ).toEqual([expect.stringContaining("shared/ may not import agents/")]);
    expect(
      await layerErrors(
        "src/host/zz-probe.ts",
        'import { connectAgent } from "../agents/connection.js";\nexport const x = connectAgent;\n',
      ),
    ).toEqual([expect.stringContaining("host/ may not import agents/")]);
    expect(
      await layerErrors(
        "src/engine/zz-probe.ts",
        'import type { AppContext } from "../config/context.js";\nexport type X = AppContext;\n',
      ),
    ).toEqual([expect.stringContaining("engine/ may not import config/")]);
    // The command line only parses, asks app/ and renders (issue 35).
    for (const file of [
      "hub/session-hub",
      "engine/gateway",
      "server/connection",
      "ledger/open",
      "agents/registry",
      "host/create-host",
      "cluster/index",
      "telemetry/budgets",
      "workflows/load",
      "workflows/runtime/commands",
      "shim/run",
      "stdio/stdio-server",
      "mock-agent/agent",
    ]) {
      const layer = file.slice(0, file.lastIndexOf("/"));
      expect(
        await layerErrors(
          "src/cli/zz-probe.ts",
          `import * as x from "../${file}.js";\nexport const y = x;\n`,
        ),
      ).toEqual([expect.stringContaining(`cli/ may not import ${layer}/`)]);
    }
    expect(
      await layerErrors(
        "src/cli/zz-probe.ts",
        'import { cliContext } from "../app/context.js";\nimport { HubError } from "../shared/errors.js";\nexport const x = [cliContext, HubError];\n',
      ),
    ).toEqual([]);
    expect(
      await layerErrors(
        "src/app/zz-probe.ts",
        'import { EXIT_CODES } from "../cli/exit-codes.js";\nexport const x = EXIT_CODES;\n',
      ),
    ).toEqual([expect.stringContaining("app/ may not import cli/")]);
    expect(
      await layerErrors(
        "src/workflows/zz-probe.ts",
        'import { createRunSession } from "./runtime/run-session.js";\nexport const x = createRunSession;\n',
      ),
    ).toEqual([
      expect.stringContaining("workflows/ may not import workflows/runtime/"),
    ]);
    expect(
      await layerErrors(
        "src/hub/zz-probe.ts",
        'import { Gateway } from "../engine/gateway.js";\nexport const x = Gateway;\n',
      ),
    ).toEqual([]);
  });

  it("lets nothing but cli/ import cli/", () => {
    for (const [folder, allowed] of Object.entries(LAYERS))
      if (folder !== "cli") expect(allowed).not.toContain("cli");
  });

  it("refuses an import cycle, type-only imports included", () => {
    const dir = tempDir("acphub-cycles-");
    mkdirSync(join(dir, "src", "a"), { recursive: true });
    writeFileSync(
      join(dir, "src", "a", "one.ts"),
      'import type { Two } from "./two.js";\nexport type One = { two?: Two };\n',
    );
    writeFileSync(
      join(dir, "src", "a", "two.ts"),
      'import type { One } from "./one.js";\nexport type Two = { one?: One };\n',
    );
    const script = join(root, "scripts", "check-cycles.mjs");
    const run = spawnSync(process.execPath, [script], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("src/a/one.ts");
    // The project itself has none.
    expect(() =>
      execFileSync(process.execPath, [script], { cwd: root }),
    ).not.toThrow();
  });
});
