// The page's frame: connection banner, navigation (#/ sessions, #/new, #/s/ID), the
// notifications switch and logout.
import { useEffect, useState } from "preact/hooks";
import type { HubStore } from "../state/hub-store.js";
import { enableNotifications } from "../state/notify.js";
import { NewSession } from "./new-session.js";
import { SessionList } from "./session-list.js";
import { SessionView } from "./session-view.js";

function useHash(): string {
  const [hash, setHash] = useState(window.location.hash);
  useEffect(() => {
    const on = () => setHash(window.location.hash);
    window.addEventListener("hashchange", on);
    return () => window.removeEventListener("hashchange", on);
  }, []);
  return hash;
}

function useStore(store: HubStore): void {
  const [, setVersion] = useState(0);
  useEffect(() => store.subscribe(() => setVersion(store.version)), [store]);
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

export function App({ store }: { store: HubStore }) {
  useStore(store);
  const hash = useHash();
  const session = /^#\/s\/(.+)$/.exec(hash)?.[1];
  const [notify, setNotify] = useState(
    typeof Notification !== "undefined" &&
      Notification.permission === "granted",
  );
  useEffect(() => {
    if (!session) store.close();
  }, [session]);
  useEffect(() => void store.connection().catch(() => undefined), []);
  return (
    <>
      <header class="top">
        <a class="brand" href="#/">
          acphub
        </a>
        <nav>
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
        </nav>
      </header>
      <Banner status={store.status} />
      <Waiting store={store} shown={session && decodeURIComponent(session)} />
      <main>
        {session ? (
          <SessionView store={store} sessionId={decodeURIComponent(session)} />
        ) : hash === "#/new" ? (
          <NewSession store={store} />
        ) : (
          <SessionList store={store} />
        )}
      </main>
    </>
  );
}
