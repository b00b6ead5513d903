// The server-side function that writes one group-commit batch (schema 7): called as one
// statement, it is one round trip and one implicit transaction, where the batch used to be four
// (BEGIN, the counters locked, the inserts, COMMIT) with the session rows locked across them.
// Inside, each statement takes a fresh snapshot (a VOLATILE plpgsql function in READ
// COMMITTED), so the order of the checks is the one the batch had as separate statements: the
// sessions' rows locked in id order first (as a cluster's claim locks them), then the batch id
// looked up (a retry after an ambiguous COMMIT), then the leases read (fencing), then the writes.
// This text is what migration 7 ran: a change to the function is a new migration. Since schema
// 14 this acphub calls acphub_write_batch_v14 (pg-batch-fn-v14.ts); this one stays in the
// database for an older node still running on it.

/**
 * Payloads come as one text, joined by this separator (the ASCII record separator, which valid
 * JSON never holds raw): split by string_to_array, they cost the server and the driver about
 * half what an array literal of escaped JSON texts costs. A payload that holds it makes the
 * counts differ: the batch fails, as it fails on any payload that is not JSON.
 */
export const SEPARATOR = "\x1e";

/**
 * The function's SQL (schema 7). Per session of the batch (p_sessions, distinct): its events,
 * their bytes and the time of its last one. Per event: its session (index into p_sessions, from
 * 1), its place among that session's events of the batch (from 0), kind, payload, bytes, time.
 * It returns, per session, the seq of its first event (its others follow in order), -1 when
 * another node holds the session's lease (fenced), null when the session does not exist.
 */
export const WRITE_BATCH_FUNCTION = `
CREATE FUNCTION acphub_write_batch(
  p_sessions TEXT[], p_counts INTEGER[], p_totals BIGINT[], p_lasts BIGINT[],
  p_which INTEGER[], p_places INTEGER[], p_kind_list TEXT, p_payload_list TEXT,
  p_sizes INTEGER[], p_ats BIGINT[],
  p_batch TEXT, p_forget TEXT[], p_node TEXT, p_instance TEXT, p_now BIGINT,
  p_max_events BIGINT, p_max_bytes BIGINT
) RETURNS TEXT LANGUAGE plpgsql AS $fn$
DECLARE
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
  IF cardinality(v_kinds) <> cardinality(p_which)
     OR cardinality(v_payloads) <> cardinality(p_which) THEN
    RAISE EXCEPTION 'acphub_write_batch: % events but % kinds and % payloads (a payload holds U+001E: not JSON)',
      cardinality(p_which), cardinality(v_kinds), cardinality(v_payloads);
  END IF;
  -- The counters, read once their rows are locked (after any writer holding them committed).
  SELECT array_agg(l.id), array_agg(l.next_seq) INTO v_ids, v_nexts FROM (
    SELECT id, next_seq FROM acphub_sessions WHERE id = ANY (p_sessions) ORDER BY id FOR UPDATE
  ) l;
  -- An earlier attempt of this batch committed: what it gave, nothing written again.
  SELECT b.seqs INTO v_given FROM acphub_batches b WHERE b.id = p_batch;
  IF FOUND THEN
    RETURN v_given;
  END IF;
  -- Each session's first seq. Fencing: a session whose unexpired lease another node holds is
  -- not written; a claim locks the session's row too, so it is either seen here or waits.
  SELECT array_agg(CASE WHEN s.id IS NULL THEN NULL WHEN l.session_id IS NOT NULL THEN -1
      ELSE s.next_seq END ORDER BY p.i)
  INTO v_firsts
  FROM unnest(p_sessions) WITH ORDINALITY AS p(id, i)
  LEFT JOIN unnest(v_ids, v_nexts) AS s(id, next_seq) ON s.id = p.id
  LEFT JOIN acphub_leases l ON p_node IS NOT NULL AND l.session_id = p.id
    AND l.node_id <> p_node AND l.expires >= (extract(epoch from clock_timestamp()) * 1000)::bigint;
  v_given := to_json(v_firsts)::text;
  INSERT INTO acphub_events (session_id, seq, kind, payload, bytes, at)
  SELECT p_sessions[e.w], v_firsts[e.w] + e.k, e.kind, e.payload::json, e.size, e.at
  FROM unnest(p_which, p_places, v_kinds, v_payloads, p_sizes, p_ats)
    AS e(w, k, kind, payload, size, at)
  WHERE v_firsts[e.w] > 0;
  WITH upd AS (
    UPDATE acphub_sessions s SET next_seq = u.first + u.events,
      event_count = s.event_count + u.events, bytes = s.bytes + u.size, updated_at = u.at
    FROM unnest(p_sessions, v_firsts, p_counts, p_totals, p_lasts) AS u(id, first, events, size, at)
    WHERE s.id = u.id AND u.first > 0
    RETURNING s.id, u.first + u.events - 1 AS last,
      s.event_count > p_max_events OR s.bytes > p_max_bytes AS too_big
  )
  SELECT array_agg(id), array_agg(last), array_agg(id) FILTER (WHERE too_big)
  INTO v_written, v_lasts, v_over FROM upd;
  -- Other acphub processes following these sessions are told.
  PERFORM pg_notify('acphub_events', json_build_array(p_instance, w.id, w.last)::text)
  FROM unnest(v_written, v_lasts) AS w(id, last);
  INSERT INTO acphub_batches (id, seqs, at) VALUES (p_batch, v_given, p_now);
  DELETE FROM acphub_batches WHERE id = ANY (p_forget);
  -- Past its caps, a session loses its oldest events (never its newest) and is incomplete.
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
