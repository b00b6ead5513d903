// What `agents search|add|update|remove|registry update` say to people (the CLI prints it; with
// --json it prints the results themselves). Here, so the command line stays parsing only.
import type { AddResult, UpdateRow } from "./registry-agents.js";
import type {
  searchRegistry,
  updateRegistrySnapshot,
} from "./registry-search.js";
import type { removeRegistryAgent } from "./registry-agents.js";

type Search = ReturnType<typeof searchRegistry>;
type Refresh = Awaited<ReturnType<typeof updateRegistrySnapshot>>;
type Removed = ReturnType<typeof removeRegistryAgent>;

// One line per entry, then where the snapshot came from.
export function searchText(result: Search): string {
  const s = result.snapshot;
  const lines = result.agents.map(
    (a) =>
      `${a.id.padEnd(18)} ${a.version.padEnd(10)} ${a.launch.padEnd(36)} ${a.description}${a.added ? `  [added as ${a.added.name} ${a.added.version}]` : ""}\n`,
  );
  const from = `(${s.origin} registry snapshot of ${s.date}, ${s.agents} agents, sha256 ${s.sha256.slice(0, 12)}…)\n`;
  return (lines.length ? lines.join("") : "no registry agent matches\n") + from;
}

// What was (or with --preview would be) written, and where.
export function addText(r: AddResult): string {
  const entry = JSON.stringify({ [r.name]: r.entry }, null, 2);
  const where = r.preview
    ? `would add to "agents" in ${r.configFile} (nothing written; --preview):`
    : `added "${r.name}" to "agents" in ${r.configFile}:`;
  const installed = r.installDir
    ? `${r.preview ? "would install" : "installed"} in ${r.installDir}\n`
    : "";
  const next = r.preview
    ? ""
    : `run it: acphub run --agent ${r.name} "hello"\n`;
  return `${where}\n${entry}\n${installed}${next}`;
}

// One line per added agent: updated, or already at the snapshot's version.
export function updateText(rows: UpdateRow[]): string {
  if (rows.length === 0)
    return "no agents were added from the registry (acphub agents add ID)\n";
  const lines = rows.map((r) =>
    r.updated
      ? `${r.name}: ${r.from} → ${r.to}\n`
      : r.from === r.to
        ? `${r.name}: ${r.from} is the snapshot's version\n`
        : `${r.name}: would go ${r.from} → ${r.to} (--preview)\n`,
  );
  return `${lines.join("")}(the registry snapshot is refreshed by \`acphub agents registry update\`)\n`;
}

// What went with the agent.
export function removeText(r: Removed): string {
  return `removed "${r.name}" (${r.id} ${r.version}) from ${r.configFile}${r.removedDir ? ` and its files in ${r.removedDir}` : ""}${r.droppedDefault ? "; it was the defaultAgent, which is now unset" : ""}\n`;
}

// The new snapshot and which agents it changed.
export function refreshText(r: Refresh): string {
  const changes = r.changed
    .map((c) => `  ${c.id}: ${c.from ?? "new"} → ${c.to}\n`)
    .join("");
  return `registry snapshot updated from ${r.snapshot.source}: ${r.snapshot.agents} agents, sha256 ${r.snapshot.sha256} (stored in ${r.dir})\n${changes || "  no version changed\n"}`;
}
