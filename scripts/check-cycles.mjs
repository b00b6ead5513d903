// Fails when files of src/ import each other in a circle, type-only imports included
// (import-x/no-cycle in ESLint sees only runtime imports). docs/architecture.md, "Layers".
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

const IMPORT = /(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;

// Every .ts/.tsx file under `dir`.
function sources(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sources(path, out);
    else if (/\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

// The file a relative `.js` specifier names (its .ts or .tsx source).
function target(from, spec) {
  const base = normalize(join(dirname(from), spec)).replace(/\.js$/, "");
  return [`${base}.ts`, `${base}.tsx`, base].find((p) => existsSync(p));
}

const graph = new Map();
for (const file of sources("src")) {
  const text = readFileSync(file, "utf8");
  const deps = [...text.matchAll(IMPORT)].map((m) => target(file, m[1]));
  graph.set(
    file,
    deps.filter((d) => d !== undefined),
  );
}

// Tarjan's strongly connected components: any with two or more files is a cycle.
let next = 0;
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
function visit(v) {
  index.set(v, next);
  low.set(v, next++);
  stack.push(v);
  onStack.add(v);
  for (const w of graph.get(v) ?? []) {
    if (!index.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
  }
  if (low.get(v) !== index.get(v)) return;
  const component = [];
  let w;
  do {
    w = stack.pop();
    onStack.delete(w);
    component.push(w);
  } while (w !== v);
  if (component.length > 1) cycles.push(component);
}
for (const file of graph.keys()) if (!index.has(file)) visit(file);

if (cycles.length > 0) {
  process.stderr.write(
    `import cycles in src/ (type-only imports count too; see docs/architecture.md):\n${cycles
      .map((c) => `  ${c.join(" ↔ ")}`)
      .join("\n")}\n`,
  );
  process.exit(1);
}
