// The page's frame: connection banner, the sessions sidebar beside the open pane (#/ nothing
// open, #/new the new-session form, #/s/ID a session; one pane at a time on phones), the
// keyboard (Esc stops the turn, Ctrl/⌘+K switches session), who is logged in, notifications
// and logout.
import { useEffect, useState } from "preact/hooks";
import type { HubStore } from "../state/hub-store.js";
import { enableNotifications } from "../state/notify.js";
import { NewSession } from "./new-session.js";
import { SessionList } from "./session-list.js";
import { SessionView } from "./session-view.js";
import { Who } from "./who.js";
import { LoginEnded } from "./login-ended.js";
import { SecretsButton } from "./secrets-dialog.js";
import { AdminLinks, AdminPane } from "./admin-entry.js";

function useHash(): string {
  const [hash, setHash] = useState(window.location.hash);
  useEffect(() => {
    const on = () => setHash(window.location.hash);
    window.addEventListener("hashchange", on);
    // A change between the first render and now (the page still loading) was not heard.
    on();
    return () => window.removeEventListener("hashchange", on);
  }, []);
  return hash;
}

function useStore(store: HubStore): void {
  const [, setVersion] = useState(0);
  useEffect(() => store.subscribe(() => setVersion(store.version)), [store]);
}

// Esc stops this page's running turn; Ctrl/⌘+K goes to the session search.
function useKeys(store: HubStore): void {
  useEffect(() => {
    const on = (e: KeyboardEvent) => {
      if (e.key === "Escape" && store.turn.running && store.turn.own) {
        e.preventDefault();
        store.cancel();
      }
      if (e.key.toLowerCase() === "k" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        if (window.matchMedia("(max-width: 640px)").matches)
          window.location.hash = "#/";
        setTimeout(() => store.focusSearch?.());
      }
    };
    window.addEventListener("keydown", on);
    return () => window.removeEventListener("keydown", on);
  }, [store]);
}

async function logout(): Promise<void> {
  await fetch("/logout", { method: "POST", credentials: "same-origin" });
  window.location.replace("/");
}

function Banner({ status }: { status: HubStore["status"] }) {
  if (status === "online") return null;
  const text =
    status === "logged-out"
      ? "This browser is logged out. Open a new login URL from acphub serve."
      : status === "offline"
        ? "Connection to the hub lost — reconnecting…"
        : "Connecting to the hub…";
  return (
    <div class={`banner ${status}`} role="status" data-status={status}>
      {text}
    </div>
  );
}

// Permission questions from sessions other than the one on screen: a link to each.
function Waiting({ store, shown }: { store: HubStore; shown?: string }) {
  const ids = [
    ...new Set(store.permissions.map((p) => String(p.params["sessionId"]))),
  ].filter((id) => id !== shown);
  if (ids.length === 0) return null;
  return (
    <div class="banner waiting" role="alert">
      {ids.map((id) => (
        <a key={id} href={`#/s/${encodeURIComponent(id)}`}>
          An agent is waiting for your answer in “{store.titles.get(id) ?? id}”
        </a>
      ))}
    </div>
  );
}

function TopBar({ store }: { store: HubStore }) {
  // Read once (the lazy form): asking the browser on every render costs a round trip to it.
  const [notify, setNotify] = useState(
    () =>
      typeof Notification !== "undefined" &&
      Notification.permission === "granted",
  );
  return (
    <header class="top">
      <a class="brand" href="#/">
        acphub
      </a>
      <div class="top-actions">
        <Who me={store.team.me} />
        <SecretsButton store={store} />
        <AdminLinks store={store} />
        {!notify && typeof Notification !== "undefined" && (
          <button
            type="button"
            onClick={() => void enableNotifications().then(setNotify)}
          >
            Notify me
          </button>
        )}
        <button type="button" class="logout" onClick={() => void logout()}>
          Log out
        </button>
      </div>
    </header>
  );
}

export function App({ store }: { store: HubStore }) {
  useStore(store);
  useKeys(store);
  const hash = useHash();
  const raw = /^#\/s\/(.+)$/.exec(hash)?.[1];
  const session = raw && decodeURIComponent(raw);
  useEffect(() => {
    if (!session) store.close();
  }, [session]);
  useEffect(
    () =>
      void store
        .connection()
        .then(() => store.team.whoami())
        .catch(() => undefined),
    [],
  );
  // What this page may do in the open session (its grants), read when it opens.
  useEffect(() => {
    if (session) void store.team.load(session).catch(() => undefined);
  }, [session]);
  const pane = session
    ? "session"
    : hash === "#/new"
      ? "new"
      : hash === "#/admin" || hash === "#/usage"
        ? "admin"
        : "none";
  // The hub refused this browser's login: the old transcript and name go with it.
  if (store.status === "logged-out") return <LoginEnded />;
  return (
    <>
      <TopBar store={store} />
      <Banner status={store.status} />
      <Waiting store={store} shown={session} />
      <div class="layout" data-pane={pane}>
        <aside class="sidebar">
          <SessionList store={store} current={session} />
        </aside>
        <main class="pane">
          {hash === "#/admin" || hash === "#/usage" ? (
            <AdminPane store={store} hash={hash} />
          ) : session ? (
            <SessionView store={store} sessionId={session} />
          ) : pane === "new" ? (
            <NewSession store={store} />
          ) : (
            <div class="empty-pane">
              <p>Pick a session on the left, or start a new one.</p>
              <a class="button" href="#/new">
                New session
              </a>
            </div>
          )}
        </main>
      </div>
    </>
  );
}
