// Where workflows live: `.acphub/workflows/` under the session's working folder (these win)
// and `workflows/` in acphub's home. A workflow's file is named after it: NAME.yaml.
import { readdirSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { HubError } from "../shared/errors.js";
import { loadWorkflowFile, type LoadOptions, type Workflow } from "./load.js";

export interface WorkflowDirs {
  /** The session's working folder. */
  cwd: string;
  /** acphub's own workflows folder. */
  homeDir: string;
}

export interface WorkflowEntry {
  name: string;
  file: string;
  source: "project" | "home";
}

const EXTENSIONS = new Set([".yaml", ".yml"]);

// The folders to search, project first.
export function searchDirs(
  dirs: WorkflowDirs,
): [string, WorkflowEntry["source"]][] {
  return [
    [join(dirs.cwd, ".acphub", "workflows"), "project"],
    [dirs.homeDir, "home"],
  ];
}

function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => EXTENSIONS.has(extname(f)))
      .sort();
  } catch {
    return [];
  }
}

// Every workflow file found, one per name, the project's winning over the home's.
export function listWorkflows(dirs: WorkflowDirs): WorkflowEntry[] {
  const byName = new Map<string, WorkflowEntry>();
  for (const [dir, source] of searchDirs(dirs))
    for (const file of filesIn(dir)) {
      const name = basename(file, extname(file));
      if (!byName.has(name))
        byName.set(name, { name, file: join(dir, file), source });
    }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

// Finds and loads the workflow NAME; its `name` key must match its file's name.
export function findWorkflow(
  name: string,
  dirs: WorkflowDirs,
  options: LoadOptions,
): Workflow {
  const entry = listWorkflows(dirs).find((e) => e.name === name);
  if (!entry) {
    const where = searchDirs(dirs)
      .map(([d]) => d)
      .join(" or ");
    throw new HubError(
      "WORKFLOW_NOT_FOUND",
      `no workflow "${name}" in ${where}`,
      {
        details: { name },
      },
    );
  }
  const workflow = loadWorkflowFile(entry.file, options);
  if (workflow.spec.name !== name)
    throw new HubError(
      "WORKFLOW_INVALID",
      `${entry.file}: name "${workflow.spec.name}" does not match the file name "${name}"`,
      { details: { file: entry.file } },
    );
  return workflow;
}
