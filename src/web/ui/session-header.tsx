// The open session's header: its title (renamed in place), agent, folder, state and usage,
// and what can be done with it: stop, fork, export (Markdown, JSON), share, delete — only what
// this page's user may do (a viewer: export only).
import { useEffect, useRef, useState } from "preact/hooks";
import type { HubStore } from "../state/hub-store.js";
import { messageOf } from "../state/hub-store.js";
import {
  download,
  fork,
  remove,
  rename,
  toJson,
  toMarkdown,
} from "../state/session-actions.js";
import { SettingsBar } from "./settings-bar.js";
import { ShareButton } from "./share-dialog.js";
import { StateBadge } from "./state-badge.js";
import { UsageView } from "./plan.js";
import { ReadOnlyBadge } from "./who.js";

// The title as a heading, or a text field while it is being renamed (Enter or leaving the field
// saves, Esc drops the change); the focus goes back to the title after.
function Title({
  store,
  title,
  readOnly,
}: {
  store: HubStore;
  title: string;
  readOnly: boolean;
}) {
  const [editing, setEditing] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const open = useRef(false);
  useEffect(() => {
    if (editing) field.current?.select();
  }, [editing]);
  const done = (value?: string) => {
    if (!open.current) return;
    open.current = false;
    setEditing(false);
    if (value !== undefined && value.trim() && value !== title)
      act(store, () => rename(store, value));
    setTimeout(() => button.current?.focus());
  };
  if (readOnly) return <h2 class="session-title">{title}</h2>;
  if (editing)
    return (
      <input
        ref={field}
        class="title-edit"
        aria-label="Session title"
        defaultValue={title}
        onKeyDown={(e) => {
          const el = e.target as HTMLInputElement;
          if (e.key === "Enter") done(el.value);
          if (e.key === "Escape") {
            e.stopPropagation();
            done();
          }
        }}
        onBlur={(e) => done((e.target as HTMLInputElement).value)}
      />
    );
  return (
    <h2 class="session-title">
      <button
        type="button"
        class="title-button"
        ref={button}
        title="Rename"
        aria-label={`${title} (rename)`}
        onClick={() => {
          open.current = true;
          setEditing(true);
        }}
      >
        {title}
      </button>
    </h2>
  );
}

// Runs an action, showing its failure in the session's error line.
function act(store: HubStore, run: () => Promise<unknown>): void {
  run().catch((e: unknown) => {
    store.error = messageOf(e);
    store.changed();
  });
}

function Actions({ store, title }: { store: HubStore; title: string }) {
  const [confirming, setConfirming] = useState(false);
  const m = store.model!;
  const team = store.team;
  const standing = team.standing(m.sessionId);
  // Unknown standing (still being read): offered; the hub refuses what is not allowed.
  const owns = standing !== "driver" && standing !== "viewer";
  const file = title.replace(/[^\w.-]+/g, "-").slice(0, 60) || "session";
  return (
    <div class="actions" role="group" aria-label="Session actions">
      {store.turn.running && !store.turn.own && standing !== "viewer" && (
        <button type="button" onClick={() => store.cancel()}>
          Stop turn
        </button>
      )}
      {team.me?.role !== "viewer" && (
        <button
          type="button"
          onClick={() =>
            act(store, async () => {
              window.location.hash = `#/s/${encodeURIComponent(await fork(store))}`;
            })
          }
        >
          Fork
        </button>
      )}
      <button
        type="button"
        onClick={() =>
          download(`${file}.md`, "text/markdown", toMarkdown(m, title))
        }
      >
        Export Markdown
      </button>
      <button
        type="button"
        onClick={() =>
          act(store, async () =>
            download(`${file}.json`, "application/json", await toJson(store)),
          )
        }
      >
        Export JSON
      </button>
      <ShareButton store={store} sessionId={m.sessionId} />
      {!owns ? null : confirming ? (
        <>
          <button
            type="button"
            class="danger"
            ref={(el) => el?.focus()}
            onClick={() =>
              act(store, async () => {
                await remove(store);
                window.location.hash = "#/";
                // Where the reader goes next: another session.
                setTimeout(() => store.focusSearch?.());
              })
            }
          >
            Delete for good
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </>
      ) : (
        <button type="button" onClick={() => setConfirming(true)}>
          Delete…
        </button>
      )}
    </div>
  );
}

export function SessionHeader({ store }: { store: HubStore }) {
  const m = store.model!;
  const info = store.infos.get(m.sessionId);
  const title = m.title ?? store.titles.get(m.sessionId) ?? "New session";
  const readOnly = store.team.readOnly(m.sessionId);
  const state = store.turn.running
    ? info?.state === "waiting"
      ? "waiting"
      : "running"
    : (info?.state ?? "idle");
  return (
    <div class="session-head">
      <a class="back" href="#/">
        ← Sessions
      </a>
      <Title store={store} title={title} readOnly={readOnly} />
      <div class="session-meta">
        <StateBadge state={state} />
        {readOnly && <ReadOnlyBadge />}
        {info?.agent && <span class="agent">{info.agent}</span>}
        {m.runsAs && (
          <span
            class="runs-as"
            title={`This session runs in ${m.runsAs}'s own agent process, with ${m.runsAs}'s environment and credentials`}
          >
            runs as {m.runsAs}'s agent
          </span>
        )}
        {info?.cwd && (
          <span class="folder" title={info.cwd}>
            {info.cwd}
          </span>
        )}
        {m.usage && <UsageView usage={m.usage} />}
      </div>
      <Actions store={store} title={title} />
      <SettingsBar model={m} store={store} readOnly={readOnly} />
    </div>
  );
}
