// Schema 14 (issue 39): what a batch costs inside PostgreSQL, made smaller. Measured (backend
// CPU per batch of 480 events of one session, or 100 sessions × 5): the foreign key from
// acphub_events to acphub_sessions checked every inserted row with a query of its own (~5 µs
// per event, a third of the batch), and writing `updated_at` with every batch moved two index
// entries per session (~10 µs per session per batch). So:
// - the events go with their session by a trigger instead of the foreign key's cascade: every
//   node (older ones too) deletes sessions the same way, and the batch function already refuses
//   events of a session it does not find under the row's lock, which was all the key checked;
// - acphub_write_batch_v14 writes `updated_at` only when the writer says it is due (at most
//   once a second per session: pg-updated-at.ts), so most batches leave both indexes alone
//   and the row's update can be HOT; the per-event numbers come as comma-joined text, which
//   the driver sends as it is (array literals cost it ~0.9 µs per event to escape).
// The schema-7 function stays, unchanged: an older node still running on this database calls it.
// This text is what migration 14 ran: a change to it is a new migration.

/** Events deleted with their session, for every node, without the per-row key check. */
const EVENTS_FOLLOW_SESSIONS = `
CREATE FUNCTION acphub_sessions_deleted() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM acphub_events e USING gone g WHERE e.session_id = g.id;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER acphub_sessions_deleted AFTER DELETE ON acphub_sessions
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION acphub_sessions_deleted();
ALTER TABLE acphub_events DROP CONSTRAINT acphub_events_session_id_fkey;`;

/** How the batch functions since schema 14 give each session its first seq: the sessions' rows
 * locked, a retried batch found, the leases read (part of migrations 14 and 15's texts: never to be changed). */
export const BATCH_FIRSTS = `  SELECT array_agg(l.id), array_agg(l.next_seq) INTO v_ids, v_nexts FROM (
    SELECT id, next_seq FROM acphub_sessions WHERE id = ANY (p_sessions) ORDER BY id FOR UPDATE
  ) l;
  SELECT b.seqs INTO v_given FROM acphub_batches b WHERE b.id = p_batch;
  IF FOUND THEN
    RETURN v_given;
  END IF;
  SELECT array_agg(CASE WHEN s.id IS NULL THEN NULL WHEN l.session_id IS NOT NULL THEN -1
      ELSE s.next_seq END ORDER BY p.i)
  INTO v_firsts
  FROM unnest(p_sessions) WITH ORDINALITY AS p(id, i)
  LEFT JOIN unnest(v_ids, v_nexts) AS s(id, next_seq) ON s.id = p.id
  LEFT JOIN acphub_leases l ON p_node IS NOT NULL AND l.session_id = p.id
    AND l.node_id <> p_node AND l.expires >= (extract(epoch from clock_timestamp()) * 1000)::bigint;
  v_given := to_json(v_firsts)::text;`;

/** How the batch functions since schema 14 end: the NOTIFYs, the batch's record, and the trim of
 * the sessions past their caps (part of migrations 14 and 15's texts: never to be changed). */
export const BATCH_FUNCTION_END = `  SELECT array_agg(id), array_agg(last), array_agg(id) FILTER (WHERE too_big)
  INTO v_written, v_lasts, v_over FROM upd;
  PERFORM pg_notify('acphub_events', json_build_array(p_instance, w.id, w.last)::text)
  FROM unnest(v_written, v_lasts) AS w(id, last);
  INSERT INTO acphub_batches (id, seqs, at) VALUES (p_batch, v_given, p_now);
  DELETE FROM acphub_batches WHERE id = ANY (p_forget);
  FOREACH v_sid IN ARRAY coalesce(v_over, '{}') LOOP
    DELETE FROM acphub_events e USING (
      SELECT seq FROM (
        SELECT seq, row_number() OVER w AS n, sum(bytes) OVER w AS total
        FROM acphub_events WHERE session_id = v_sid WINDOW w AS (ORDER BY seq DESC)
      ) t WHERE n > 1 AND (n > p_max_events OR total > p_max_bytes)
    ) d WHERE e.session_id = v_sid AND e.seq = d.seq;
    UPDATE acphub_sessions SET incomplete = TRUE,
      event_count = (SELECT COUNT(*) FROM acphub_events WHERE session_id = v_sid),
      bytes = (SELECT COALESCE(SUM(bytes), 0) FROM acphub_events WHERE session_id = v_sid)
    WHERE id = v_sid;
  END LOOP;
  RETURN v_given;
END
$fn$;`;

/**
 * The function (schema 14): as schema 7's (pg-batch-fn.ts), but per session a stamp (the
 * `updated_at` to write, or 0: not due; never moved back) instead of its last time, and per
 * event its session, place, size and time as comma-joined text.
 */
const WRITE_BATCH_V14 = `
CREATE FUNCTION acphub_write_batch_v14(
  p_sessions TEXT[], p_counts INTEGER[], p_totals BIGINT[], p_stamps BIGINT[],
  p_which TEXT, p_places TEXT, p_kind_list TEXT, p_payload_list TEXT,
  p_sizes TEXT, p_ats TEXT,
  p_batch TEXT, p_forget TEXT[], p_node TEXT, p_instance TEXT, p_now BIGINT,
  p_max_events BIGINT, p_max_bytes BIGINT
) RETURNS TEXT LANGUAGE plpgsql AS $fn$
DECLARE
  v_which INTEGER[] := string_to_array(p_which, ',')::INTEGER[];
  v_kinds TEXT[] := string_to_array(p_kind_list, ',');
  v_payloads TEXT[] := string_to_array(p_payload_list, E'\\x1e');
  v_ids TEXT[];
  v_nexts BIGINT[];
  v_firsts BIGINT[];
  v_given TEXT;
  v_written TEXT[];
  v_lasts BIGINT[];
  v_over TEXT[];
  v_sid TEXT;
BEGIN
  IF cardinality(v_kinds) <> cardinality(v_which)
     OR cardinality(v_payloads) <> cardinality(v_which) THEN
    RAISE EXCEPTION 'acphub_write_batch: % events but % kinds and % payloads (a payload holds U+001E: not JSON)',
      cardinality(v_which), cardinality(v_kinds), cardinality(v_payloads);
  END IF;
${BATCH_FIRSTS}
  INSERT INTO acphub_events (session_id, seq, kind, payload, bytes, at)
  SELECT p_sessions[e.w], v_firsts[e.w] + e.k, e.kind, e.payload::json, e.size, e.at
  FROM unnest(v_which, string_to_array(p_places, ',')::INTEGER[], v_kinds, v_payloads,
      string_to_array(p_sizes, ',')::INTEGER[], string_to_array(p_ats, ',')::BIGINT[])
    AS e(w, k, kind, payload, size, at)
  WHERE v_firsts[e.w] > 0;
  WITH upd AS (
    UPDATE acphub_sessions s SET next_seq = u.first + u.events,
      event_count = s.event_count + u.events, bytes = s.bytes + u.size,
      updated_at = GREATEST(s.updated_at, u.stamp)
    FROM unnest(p_sessions, v_firsts, p_counts, p_totals, p_stamps) AS u(id, first, events, size, stamp)
    WHERE s.id = u.id AND u.first > 0
    RETURNING s.id, u.first + u.events - 1 AS last,
      s.event_count > p_max_events OR s.bytes > p_max_bytes AS too_big
  )
${BATCH_FUNCTION_END}`;

/** Migration 14's statements. */
export const SCHEMA_14_SQL = EVENTS_FOLLOW_SESSIONS + WRITE_BATCH_V14;
