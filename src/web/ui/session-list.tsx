// The sessions sidebar: the hub's sessions (session/list), newest first, a page at a time, each
// with its live state (running, waiting for approval, failed, idle), agent, folder and age;
// searched by text (titles, folders and agents on the page; the sessions' text by the hub),
// filtered by state and folder; refreshed when the hub says a session changed.
import { useEffect, useRef, useState } from "preact/hooks";
import type { HubStore, SessionInfo } from "../state/hub-store.js";
import { messageOf } from "../state/hub-store.js";
import type { Params } from "../state/session-model.js";
import { StateBadge } from "./state-badge.js";
import { HUB_METHOD, type SearchAnswer } from "../../shared/hub-extension.js";

// The hub's sessions in a folder (all when empty), the first page refreshed whenever the hub
// says a session changed; `more` appends the next page.
function useSessionRows(store: HubStore, cwd: string) {
  const [rows, setRows] = useState<SessionInfo[]>([]);
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
      const next = store.rememberTitles(page.sessions);
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

// The ids of sessions whose text (prompts, replies) holds the words, asked of the hub.
function useTextSearch(store: HubStore, words: string): Set<string> {
  const [found, setFound] = useState(new Set<string>());
  useEffect(() => {
    if (words.trim().length < 3) return setFound(new Set());
    const timer = setTimeout(() => {
      store
        .request<SearchAnswer>(HUB_METHOD.sessionsSearch, {
          query: words.trim(),
        })
        .then((r) => setFound(new Set(r.sessionIds)))
        .catch(() => setFound(new Set()));
    }, 250);
    return () => clearTimeout(timer);
  }, [words]);
  return found;
}

/** "just now", "5 min ago", "3 h ago", "2 days ago", else the date. */
export function age(iso: string | undefined, now = Date.now()): string {
  if (!iso) return "";
  const s = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 7 * 86_400) return `${Math.floor(s / 86_400)} days ago`;
  return new Date(iso).toLocaleDateString();
}

function Row({ r, current }: { r: SessionInfo; current: boolean }) {
  const state = r.state;
  return (
    <li class={state === "idle" ? "" : `live ${state}`} data-id={r.sessionId}>
      <a
        href={`#/s/${encodeURIComponent(r.sessionId)}`}
        aria-current={current ? "page" : undefined}
      >
        <span class="row-title">{r.title || "(untitled)"}</span>
        {state !== "idle" && <StateBadge state={state} />}
        <span class="row-meta">
          {[r.agent, r.cwd, age(r.updatedAt)].filter(Boolean).join(" · ")}
        </span>
      </a>
    </li>
  );
}

export function SessionList({
  store,
  current,
}: {
  store: HubStore;
  current?: string;
}) {
  const [filter, setFilter] = useState("");
  const [state, setState] = useState("");
  const [cwd, setCwd] = useState("");
  const { rows, cursor, error, more } = useSessionRows(store, cwd);
  const inText = useTextSearch(store, filter);
  const search = useRef<HTMLInputElement>(null);
  store.focusSearch = () => search.current?.focus();
  const needle = filter.toLowerCase();
  const shown = rows
    .map((r) => store.infos.get(r.sessionId) ?? r)
    .filter(
      (r) =>
        (!state || r.state === state) &&
        (!needle ||
          inText.has(r.sessionId) ||
          `${r.title ?? ""} ${r.cwd} ${r.agent ?? ""}`
            .toLowerCase()
            .includes(needle)),
    );
  return (
    <nav class="sessions" aria-label="Sessions">
      <div class="list-tools">
        <a class="button new" href="#/new">
          New session
        </a>
        <input
          ref={search}
          type="search"
          aria-label="Filter sessions"
          placeholder="Search (Ctrl+K)"
          value={filter}
          onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
        />
        <select
          aria-label="Session state"
          value={state}
          onChange={(e) => setState((e.target as HTMLSelectElement).value)}
        >
          <option value="">All states</option>
          <option value="running">Running</option>
          <option value="waiting">Waiting for approval</option>
          <option value="failed">Failed</option>
          <option value="idle">Idle</option>
        </select>
        <input
          aria-label="Folder filter"
          placeholder="Folder (exact)"
          value={cwd}
          onChange={(e) => setCwd((e.target as HTMLInputElement).value)}
        />
      </div>
      {error && (
        <div class="error" role="alert">
          {error}
        </div>
      )}
      <ul class="session-rows">
        {shown.map((r) => (
          <Row key={r.sessionId} r={r} current={r.sessionId === current} />
        ))}
      </ul>
      {shown.length === 0 && (
        <p class="empty">
          {rows.length ? "No session matches." : "No sessions yet."}
        </p>
      )}
      {cursor && (
        <button type="button" onClick={more}>
          More sessions
        </button>
      )}
    </nav>
  );
}
