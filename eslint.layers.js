// The layers of src/ (docs/architecture.md): the folders each folder may import. Any other import
// between folders of src/ fails `npm run lint`, and so does any import cycle.
export const LAYERS = {
  shared: [],
  protocol: ["shared"],
  contracts: ["protocol", "shared"],
  config: ["shared"],
  engine: ["contracts", "protocol", "shared"],
  hub: ["engine", "contracts", "protocol", "shared"],
  agents: ["engine", "contracts", "protocol", "config", "shared"],
  host: ["contracts", "protocol", "config", "shared"],
  ledger: ["engine", "contracts", "protocol", "shared"],
  workflows: ["engine", "contracts", "protocol", "config", "shared"],
  "workflows/runtime": [
    "workflows",
    "agents",
    "host",
    "engine",
    "contracts",
    "protocol",
    "config",
    "shared",
  ],
  stdio: ["engine", "protocol", "shared"],
  server: ["hub", "engine", "contracts", "protocol", "config", "shared"],
  shim: ["stdio", "agents", "protocol", "shared"],
  cluster: ["hub", "engine", "contracts", "protocol", "config", "shared"],
  "mock-agent": ["protocol", "shared"],
  web: ["shared"],
  telemetry: ["engine", "contracts", "protocol", "config", "shared"],
  registry: ["config", "shared"],
};
const ALL = Object.keys(LAYERS);
// The composition root may use every layer; the command line only parses, asks the root and
// renders: it imports the root and the layers of plain data (config, shared, protocol, contracts).
LAYERS.app = [...ALL].filter((f) => f !== "web");
LAYERS.cli = ["app", "config", "shared", "protocol", "contracts"];

// A folder's own files: a layer nested in it (workflows/runtime) is not part of it.
function filesOf(folder) {
  const nested = Object.keys(LAYERS).some((n) => n.startsWith(`${folder}/`));
  return nested ? `./src/${folder}/*.ts` : `./src/${folder}`;
}

// import-x/no-restricted-paths zones: each folder against every folder it may not import.
export function layerZones() {
  const zones = [];
  for (const [folder, allowed] of Object.entries(LAYERS))
    for (const other of Object.keys(LAYERS)) {
      if (other === folder || allowed.includes(other)) continue;
      zones.push({
        target: filesOf(folder),
        from: filesOf(other),
        message: `${folder}/ may not import ${other}/: see docs/architecture.md, "Layers".`,
      });
    }
  return zones;
}
