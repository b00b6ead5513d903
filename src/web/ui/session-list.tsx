// The hub's sessions (session/list), newest first, a page at a time, filtered by text (on the
// page) and working folder (by the hub); live ones marked, refreshed when the hub says a
// session changed.
import { useEffect, useState } from "preact/hooks";
import type { HubStore } from "../state/hub-store.js";
import { messageOf } from "../state/hub-store.js";
import type { Params } from "../state/session-model.js";

interface Row {
  sessionId: string;
  title?: string;
  cwd: string;
  updatedAt?: string;
  agent?: string;
  running: boolean;
}

function rowOf(s: Params): Row {
  const acphub = (s["_meta"] as { acphub?: Params } | undefined)?.acphub ?? {};
  return {
    sessionId: String(s["sessionId"]),
    title: s["title"] as string | undefined,
    cwd: String(s["cwd"] ?? ""),
    updatedAt: s["updatedAt"] as string | undefined,
    agent: acphub["agent"] as string | undefined,
    running: acphub["running"] === true,
  };
}

// The hub's sessions in a folder (all when empty), the first page refreshed whenever the hub
// says a session changed; `more` appends the next page.
function useSessionRows(store: HubStore, cwd: string) {
  const [rows, setRows] = useState<Row[]>([]);
  const [cursor, setCursor] = useState<string | undefined>();
  const [error, setError] = useState<string>();
  const load = async (more?: string) => {
    try {
      const page = await store.request<{
        sessions: Params[];
        nextCursor?: string;
      }>("session/list", {
        ...(cwd ? { cwd } : {}),
        ...(more ? { cursor: more } : {}),
      });
      store.rememberTitles(page.sessions);
      const next = page.sessions.map(rowOf);
      setRows((prior) => (more ? [...prior, ...next] : next));
      setCursor(page.nextCursor);
      setError(undefined);
    } catch (e) {
      setError(messageOf(e));
    }
  };
  useEffect(() => {
    void load();
    let timer: ReturnType<typeof setTimeout> | undefined;
    store.onSessionsChanged = () => {
      clearTimeout(timer);
      timer = setTimeout(() => void load(), 200);
    };
    return () => (store.onSessionsChanged = undefined);
  }, [cwd]);
  return { rows, cursor, error, more: () => void load(cursor) };
}

export function SessionList({ store }: { store: HubStore }) {
  const [filter, setFilter] = useState("");
  const [cwd, setCwd] = useState("");
  const { rows, cursor, error, more } = useSessionRows(store, cwd);
  const needle = filter.toLowerCase();
  const shown = rows.filter(
    (r) =>
      !needle ||
      `${r.title ?? ""} ${r.cwd} ${r.agent ?? ""}`
        .toLowerCase()
        .includes(needle),
  );
  return (
    <div class="sessions">
      <div class="list-tools">
        <input
          aria-label="Filter sessions"
          placeholder="Filter"
          value={filter}
          onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
        />
        <input
          aria-label="Working folder"
          placeholder="Working folder (exact)"
          value={cwd}
          onChange={(e) => setCwd((e.target as HTMLInputElement).value)}
        />
        <a class="button" href="#/new">
          New session
        </a>
      </div>
      {error && (
        <div class="error" role="alert">
          {error}
        </div>
      )}
      <ul class="session-rows">
        {shown.map((r) => (
          <li key={r.sessionId} class={r.running ? "live" : ""}>
            <a href={`#/s/${encodeURIComponent(r.sessionId)}`}>
              <span class="row-title">{r.title || "(untitled)"}</span>
              {r.running && <span class="badge">live</span>}
              <span class="row-meta">
                {r.agent ?? ""} · {r.cwd} ·{" "}
                {r.updatedAt ? new Date(r.updatedAt).toLocaleString() : ""}
              </span>
            </a>
          </li>
        ))}
      </ul>
      {shown.length === 0 && <p>No sessions yet.</p>}
      {cursor && (
        <button type="button" onClick={more}>
          More sessions
        </button>
      )}
    </div>
  );
}
