// A user's quotas on the admin screen (issue 38): their own limits (config `users.limits`
// applies to the rest), read and changed with `_acphub/users/limits` as `acphub users limits`.
import { useEffect, useState } from "preact/hooks";
import type { Params } from "../acp/hub-client.js";
import { messageOf } from "../state/hub-store.js";
import { admin, LIMIT_LABELS, type Asker } from "../state/admin.js";

export function LimitsForm({ asker, name }: { asker: Asker; name: string }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [defaults, setDefaults] = useState<Params>({});
  const [said, setSaid] = useState<string>();
  const [error, setError] = useState<string>();
  // Shows what the hub answered (their own limits) in the fields.
  const show = (a: { limits: Record<string, number>; defaults: Params }) => {
    setDefaults(a.defaults);
    setValues(
      Object.fromEntries(
        Object.entries(a.limits).map(([k, v]) => [k, String(v)]),
      ),
    );
  };
  useEffect(
    () =>
      void admin
        .limits(asker, name, {})
        .then(show)
        .catch((e: unknown) => setError(messageOf(e))),
    [asker, name],
  );
  // Their own limits become exactly the fields filled in (an empty form drops them all).
  const save = () => {
    setError(undefined);
    setSaid(undefined);
    const limits: Params = {};
    for (const [key] of LIMIT_LABELS) {
      const v = values[key]?.trim();
      if (v) limits[key] = Number(v);
    }
    admin
      .limits(asker, name, limits, true)
      .then((a) => {
        show(a);
        setSaid("Saved.");
      })
      .catch((e: unknown) => setError(messageOf(e)));
  };
  return (
    <form
      class="admin-limits"
      aria-label={`Quotas of ${name}`}
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      {LIMIT_LABELS.map(([key, label]) => (
        <label key={key}>
          {label}{" "}
          <input
            name={`limit-${key}`}
            inputMode="numeric"
            placeholder={
              defaults[key] === undefined
                ? "hub default"
                : `default ${String(defaults[key])}`
            }
            value={values[key] ?? ""}
            onInput={(e) =>
              setValues({
                ...values,
                [key]: (e.target as HTMLInputElement).value,
              })
            }
          />
        </label>
      ))}
      <button type="submit">Save quotas</button>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {said && <p role="status">{said}</p>}
    </form>
  );
}
