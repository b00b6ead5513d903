// A new session: pick an agent (from `_acphub/agents`) and a working folder, then it opens.
import { useEffect, useState } from "preact/hooks";
import type { HubStore } from "../state/hub-store.js";
import { messageOf } from "../state/hub-store.js";

interface Agent {
  name: string;
  title?: string;
  installed?: boolean;
  default?: boolean;
}

export function NewSession({ store }: { store: HubStore }) {
  const [agents, setAgents] = useState<Agent[]>([]);
  const [agent, setAgent] = useState("");
  const [cwd, setCwd] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    store
      .request<{ agents: Agent[] }>("_acphub/agents", {})
      .then((r) => {
        setAgents(r.agents);
        setAgent(
          r.agents.find((a) => a.default)?.name ?? r.agents[0]?.name ?? "",
        );
      })
      .catch((e: unknown) => setError(messageOf(e)));
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const id = await store.create(agent, cwd.trim());
      window.location.hash = `#/s/${encodeURIComponent(id)}`;
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
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
            <option
              key={a.name}
              value={a.name}
              disabled={a.installed === false}
            >
              {a.title && a.title !== a.name
                ? `${a.name} — ${a.title}`
                : a.name}
              {a.installed === false ? " (not installed)" : ""}
            </option>
          ))}
        </select>
      </label>
      <label>
        Working folder{" "}
        <input
          aria-label="Working folder"
          required
          placeholder="/path/to/project"
          value={cwd}
          onInput={(e) => setCwd((e.target as HTMLInputElement).value)}
        />
      </label>
      {error && (
        <div class="error" role="alert">
          {error}
        </div>
      )}
      <button type="submit" disabled={busy || !agent || !cwd.trim()}>
        Start
      </button>
    </form>
  );
}
