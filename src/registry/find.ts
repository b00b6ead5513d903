// Finds registry entries: by id the way hydra does (exact id, the npx package's base name,
// `ID-acp`, a unique prefix), and by words for `agents search`.
import { didYouMean } from "../shared/did-you-mean.js";
import { HubError } from "../shared/errors.js";
import type { Registry, RegistryEntry } from "./schema.js";

// `@scope/name@1.2.3` → `name`; `name@1.2.3` → `name`.
export function packageBaseName(spec: string): string {
  const unscoped = spec.startsWith("@")
    ? spec.slice(spec.indexOf("/") + 1)
    : spec;
  return unscoped.split("@")[0]!.split(/[=<>~!]/)[0]!;
}

// The entries one resolution step matches.
function steps(query: string): ((e: RegistryEntry) => boolean)[] {
  const q = query.toLowerCase();
  return [
    (e) => e.id === q,
    (e) =>
      [e.distribution.npx?.package, e.distribution.uvx?.package].some(
        (p) => p !== undefined && packageBaseName(p).toLowerCase() === q,
      ),
    (e) => e.id === `${q}-acp`,
    (e) => e.id.startsWith(q),
  ];
}

// The one entry `query` names; several at one step list the candidates; none suggests one.
export function resolveEntry(registry: Registry, query: string): RegistryEntry {
  for (const step of steps(query)) {
    const found = registry.agents.filter(step);
    if (found.length === 1) return found[0]!;
    if (found.length > 1) {
      const ids = found.map((e) => e.id);
      throw new HubError(
        "AGENT_NOT_FOUND",
        `"${query}" matches several registry agents: ${ids.join(", ")}; name one of them`,
        { details: { query, candidates: ids } },
      );
    }
  }
  const ids = registry.agents.map((e) => e.id);
  throw new HubError(
    "AGENT_NOT_FOUND",
    `no registry agent "${query}"${didYouMean(query, ids)}; \`acphub agents search\` lists them`,
    { details: { query, known: ids } },
  );
}

// The entries whose id, name, description, package or authors hold every word.
export function searchEntries(
  registry: Registry,
  words: string[],
): RegistryEntry[] {
  const wanted = words.map((w) => w.toLowerCase()).filter((w) => w !== "");
  return registry.agents.filter((e) => {
    const text = [
      e.id,
      e.name,
      e.description,
      e.distribution.npx?.package,
      e.distribution.uvx?.package,
      ...(e.authors ?? []),
    ]
      .join(" ")
      .toLowerCase();
    return wanted.every((w) => text.includes(w));
  });
}
