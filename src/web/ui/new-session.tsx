// A new session: pick an agent (from `_acphub/agents`: installed ones and ones run through npx;
// for a user who is not an admin, the hub's default agent and those of their sessions) and a
// working folder (the hub's own and recently used ones offered; the hub refuses one that
// is not an absolute path to a directory, and the form says why), then it opens.
import { useEffect, useState } from "preact/hooks";
import type { HubStore } from "../state/hub-store.js";
import { messageOf } from "../state/hub-store.js";
import { HUB_METHOD } from "../../shared/hub-extension.js";

interface Agent {
  name: string;
  title?: string;
  installed?: boolean;
  /** How acphub runs it ("npx", "bundled", "path", "not-installed", …). */
  source?: string;
  default?: boolean;
}

// Whether acphub can start the agent: installed, or fetched and run by npx.
const runnable = (a: Agent) =>
  a.installed !== false ||
  (a.source !== undefined && a.source !== "not-installed");

function label(a: Agent): string {
  if (a.name === "") return "The hub's default agent";
  const name =
    a.title && a.title !== a.name ? `${a.name} — ${a.title}` : a.name;
  if (!runnable(a)) return `${name} (not installed)`;
  return a.installed === false && a.source === "npx"
    ? `${name} (via npx)`
    : name;
}

/** Folders of the newest sessions first, then the hub's own, each once. */
function recentFolders(store: HubStore, hubFolder?: string): string[] {
  const seen = [...store.infos.values()]
    .sort((a, b) => (b.updatedAt ?? "").localeCompare(a.updatedAt ?? ""))
    .map((i) => i.cwd)
    .filter((c): c is string => Boolean(c));
  return [...new Set([...seen, ...(hubFolder ? [hubFolder] : [])])].slice(0, 8);
}

// What a user who may not list the hub's agents (`_acphub/agents` is for admins) can pick: the
// hub's default agent, and the agents of the sessions they see.
function agentsSeen(store: HubStore): Agent[] {
  const seen = [...store.infos.values()].map((i) => i.agent);
  const names = [...new Set(seen)].filter((n): n is string => Boolean(n));
  return [{ name: "" }, ...names.sort().map((name) => ({ name }))];
}

// The form, or why there is none: a viewer may not start sessions.
export function NewSession({ store }: { store: HubStore }) {
  if (store.team.me?.role === "viewer")
    return (
      <div class="new-session" role="status">
        <h2>New session</h2>
        <p>
          You are a viewer: you may watch the sessions shared with you, not
          start new ones.
        </p>
      </div>
    );
  return <NewSessionForm store={store} />;
}

function NewSessionForm({ store }: { store: HubStore }) {
  const [agents, setAgents] = useState<Agent[]>([]);
  const [agent, setAgent] = useState("");
  const [cwd, setCwd] = useState(() => recentFolders(store)[0] ?? "");
  const [hubFolder, setHubFolder] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    store
      .request<{ agents: Agent[]; cwd?: string }>(HUB_METHOD.agents, {})
      .then((r) => {
        setAgents(r.agents);
        const usable = r.agents.filter(runnable);
        setAgent(usable.find((a) => a.default)?.name ?? usable[0]?.name ?? "");
        setHubFolder(r.cwd);
        setCwd((now) => now || recentFolders(store, r.cwd)[0] || "");
      })
      .catch((e: unknown) => {
        if ((e as { code?: unknown }).code !== -32001)
          return setError(messageOf(e));
        setAgents(agentsSeen(store));
        setAgent("");
      });
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const folder = cwd.trim();
    if (!folder.startsWith("/"))
      return setError(`The working folder must be an absolute path: ${folder}`);
    setBusy(true);
    try {
      const id = await store.create(agent, folder);
      window.location.hash = `#/s/${encodeURIComponent(id)}`;
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  const folders = recentFolders(store, hubFolder);
  return (
    <form class="new-session" onSubmit={(e) => void submit(e)}>
      <h2>New session</h2>
      <label>
        Agent{" "}
        <select
          aria-label="Agent"
          value={agent}
          onChange={(e) => setAgent((e.target as HTMLSelectElement).value)}
        >
          {agents.map((a) => (
            <option key={a.name} value={a.name} disabled={!runnable(a)}>
              {label(a)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Working folder{" "}
        <input
          aria-label="Working folder"
          required
          list="recent-folders"
          placeholder="/path/to/project"
          value={cwd}
          onInput={(e) => {
            setCwd((e.target as HTMLInputElement).value);
            setError(undefined);
          }}
        />
      </label>
      <datalist id="recent-folders">
        {folders.map((f) => (
          <option key={f} value={f} />
        ))}
      </datalist>
      {folders.length > 0 && (
        <div class="folder-picks" role="group" aria-label="Recent folders">
          {folders.map((f) => (
            <button key={f} type="button" onClick={() => setCwd(f)}>
              {f === hubFolder ? `${f} (the hub's folder)` : f}
            </button>
          ))}
        </div>
      )}
      {error && (
        <div class="error" role="alert">
          {error}
        </div>
      )}
      <button
        type="submit"
        disabled={busy || !agents.some((a) => a.name === agent) || !cwd.trim()}
      >
        Start
      </button>
    </form>
  );
}
