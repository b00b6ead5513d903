// The server-side function that writes one group-commit batch (schema 7): called as one
// statement, it is one round trip and one implicit transaction, where the batch used to be four
// (BEGIN, the counters locked, the inserts, COMMIT) with the session rows locked across them.
// Inside, each statement takes a fresh snapshot (a VOLATILE plpgsql function in READ
// COMMITTED), so the order of the checks is the one the batch had as separate statements: the
// sessions' rows locked in id order first (as a cluster's claim locks them), then the batch id
// looked up (a retry after an ambiguous COMMIT), then the leases read (fencing), then the writes.
// This text is what migration 7 ran: a change to the function is a new migration.

/** The function's SQL (schema 7). It returns the seq of each event as JSON text. */
export const WRITE_BATCH_FUNCTION = `
CREATE FUNCTION acphub_write_batch(
  p_sids TEXT[], p_kinds TEXT[], p_payloads TEXT[], p_sizes INTEGER[], p_ats BIGINT[],
  p_batch TEXT, p_forget TEXT[], p_node TEXT, p_instance TEXT, p_now BIGINT,
  p_max_events BIGINT, p_max_bytes BIGINT
) RETURNS TEXT LANGUAGE plpgsql AS $fn$
DECLARE
  v_ids TEXT[];
  v_nexts BIGINT[];
  v_fenced TEXT[];
  v_seqs TEXT;
  v_written TEXT[];
  v_lasts BIGINT[];
  v_over TEXT[];
  v_sid TEXT;
BEGIN
  -- The counters, read once their rows are locked (after any writer holding them committed).
  SELECT array_agg(l.id), array_agg(l.next_seq) INTO v_ids, v_nexts FROM (
    SELECT id, next_seq FROM acphub_sessions WHERE id = ANY (p_sids) ORDER BY id FOR UPDATE
  ) l;
  -- An earlier attempt of this batch committed: its seqs, nothing written again.
  SELECT b.seqs INTO v_seqs FROM acphub_batches b WHERE b.id = p_batch;
  IF FOUND THEN
    RETURN v_seqs;
  END IF;
  -- Fencing: sessions whose unexpired lease another node holds are not written. A claim locks
  -- the session's row too, so it is either seen here or waits for this transaction.
  IF p_node IS NOT NULL THEN
    SELECT array_agg(session_id) INTO v_fenced FROM acphub_leases
    WHERE session_id = ANY (v_ids) AND node_id <> p_node
      AND expires >= (extract(epoch from clock_timestamp()) * 1000)::bigint;
  END IF;
  WITH ev AS (
    SELECT e.n, e.sid, e.kind, e.payload, e.size, e.at,
      CASE WHEN l.next_seq IS NULL THEN NULL
           WHEN e.sid = ANY (v_fenced) THEN -1
           ELSE l.next_seq + row_number() OVER (PARTITION BY e.sid ORDER BY e.n) - 1
      END AS seq
    FROM unnest(p_sids, p_kinds, p_payloads, p_sizes, p_ats)
      WITH ORDINALITY AS e(sid, kind, payload, size, at, n)
    LEFT JOIN unnest(v_ids, v_nexts) AS l(id, next_seq) ON l.id = e.sid
  ), ins AS (
    INSERT INTO acphub_events (session_id, seq, kind, payload, bytes, at)
    SELECT sid, seq, kind, payload::json, size, at FROM ev WHERE seq > 0
  ), per AS (
    SELECT sid, count(*) AS events, sum(size) AS size, max(seq) AS last,
      (array_agg(at ORDER BY n DESC))[1] AS at
    FROM ev WHERE seq > 0 GROUP BY sid
  ), upd AS (
    UPDATE acphub_sessions s SET next_seq = per.last + 1, event_count = s.event_count + per.events,
      bytes = s.bytes + per.size, updated_at = per.at
    FROM per WHERE s.id = per.sid
    RETURNING s.id, per.last, s.event_count > p_max_events OR s.bytes > p_max_bytes AS too_big
  ), given AS (
    SELECT json_agg(seq ORDER BY n)::text AS seqs FROM ev
  ), bat AS (
    INSERT INTO acphub_batches (id, seqs, at) SELECT p_batch, seqs, p_now FROM given
  ), fgt AS (
    DELETE FROM acphub_batches WHERE id = ANY (p_forget)
  )
  SELECT (SELECT seqs FROM given), array_agg(id), array_agg(last),
    array_agg(id) FILTER (WHERE too_big)
  INTO v_seqs, v_written, v_lasts, v_over FROM upd;
  -- Other acphub processes following these sessions are told.
  PERFORM pg_notify('acphub_events', json_build_array(p_instance, w.id, w.last)::text)
  FROM unnest(v_written, v_lasts) AS w(id, last);
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
  RETURN v_seqs;
END
$fn$;`;
