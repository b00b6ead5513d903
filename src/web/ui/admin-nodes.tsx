// The nodes on the admin screen (issue 38): a cluster's nodes and their health — heartbeat
// age, up or down, draining, the sessions each runs — or, on a single hub, that one node
// (`_acphub/nodes`, as `acphub nodes list` shows them).
import { useEffect, useState } from "preact/hooks";
import type { NodesAnswer } from "../../shared/admin-answers.js";
import { messageOf } from "../state/hub-store.js";
import { admin, type Asker } from "../state/admin.js";

export function NodesView({ asker }: { asker: Asker }) {
  const [data, setData] = useState<NodesAnswer>();
  const [error, setError] = useState<string>();
  const read = () =>
    admin
      .nodes(asker)
      .then(setData)
      .catch((e: unknown) => setError(messageOf(e)));
  useEffect(() => void read(), [asker]);
  return (
    <section aria-labelledby="nodes-title">
      <h2 id="nodes-title">Nodes</h2>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {data && !data.cluster && (
        <p class="hint">A single hub (no cluster): this is its one node.</p>
      )}
      <table class="admin-table nodes-table">
        <caption>Nodes and their health</caption>
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Address</th>
            <th scope="col">Health</th>
            <th scope="col">Heartbeat</th>
            <th scope="col">Sessions</th>
          </tr>
        </thead>
        <tbody>
          {data?.nodes.map((n) => (
            <tr key={n.id} data-node={n.id}>
              <th scope="row">
                {n.id}
                {n.self && " (this one)"}
              </th>
              <td>{n.url}</td>
              <td data-cell="health">
                {!n.alive ? "down" : n.draining ? "draining" : "up"}
              </td>
              <td>{(n.heartbeatAgeMs / 1000).toFixed(1)} s ago</td>
              <td>
                {n.sessions} ({n.running} running)
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={() => void read()}>
        Refresh nodes
      </button>
    </section>
  );
}
