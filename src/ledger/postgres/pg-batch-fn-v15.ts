// Schema 15 (issue 39): a batch's runs of text chunks stored merged, one row per run. Measured
// (`node bench/pg-batch.mjs`, backend CPU): each event was a row of its own, with its index
// entry and its `json` check, 3.8 µs per event in batches of 480 and 6.7 µs in batches of 150,
// and that server time kept `acphub acp`'s relay ratio near 0.8 on two cores. The writer merges
// each session's consecutive chunks of one message in JavaScript, as the SQLite spool's fold and
// a turn's compaction do (../compaction.ts), and sends one row per run. Two things only this
// function knows, so it writes them:
// - the run's first seq, in the merged row's chunk list (`_acphubChunks`): the writer sends
//   U+001F in its place (never valid in JSON text: a row it is left in fails its `json` check)
//   with the run's first place among the session's events of the batch;
// - the row's bytes, which that number changes.
// Every event still has its own seq (`next_seq` advances by events); `event_count` counts rows,
// as after a compaction. The stored format is the one compaction writes, which older nodes
// read. The schema-14 function stays, unchanged: an older node still running calls it.
// This text is what migration 15 ran: a change to it is a new migration.

/** What the writer puts where a merged row's first seq goes (the function writes the seq). */
export const FIRST_SEQ_MARK = "\x1f";

/**
 * The function (schema 15): as schema 14's (pg-batch-fn-v14.ts), but per session the rows it
 * stores (`p_rows`) apart from its events (`p_counts`), and per row the first place of the run
 * it merges (`p_first_places`, comma-joined; -1: a row of one event). `p_places` is each row's
 * place (a merged row's: its last event's), `p_sizes` its bytes as sent.
 */
const WRITE_BATCH_V15 = `
CREATE FUNCTION acphub_write_batch_v15(
  p_sessions TEXT[], p_counts INTEGER[], p_rows INTEGER[], p_totals BIGINT[], p_stamps BIGINT[],
  p_which TEXT, p_places TEXT, p_first_places TEXT, p_kind_list TEXT, p_payload_list TEXT,
  p_sizes TEXT, p_ats TEXT,
  p_batch TEXT, p_forget TEXT[], p_node TEXT, p_instance TEXT, p_now BIGINT,
  p_max_events BIGINT, p_max_bytes BIGINT
) RETURNS TEXT LANGUAGE plpgsql AS $fn$
DECLARE
  v_which INTEGER[] := string_to_array(p_which, ',')::INTEGER[];
  v_first_places INTEGER[] := string_to_array(p_first_places, ',')::INTEGER[];
  v_kinds TEXT[] := string_to_array(p_kind_list, ',');
  v_payloads TEXT[] := string_to_array(p_payload_list, E'\\x1e');
  v_ids TEXT[];
  v_nexts BIGINT[];
  v_firsts BIGINT[];
  v_extras BIGINT[];
  v_given TEXT;
  v_written TEXT[];
  v_lasts BIGINT[];
  v_over TEXT[];
  v_sid TEXT;
BEGIN
  IF cardinality(v_kinds) <> cardinality(v_which)
     OR cardinality(v_payloads) <> cardinality(v_which)
     OR cardinality(v_first_places) <> cardinality(v_which) THEN
    RAISE EXCEPTION 'acphub_write_batch: % rows but % kinds, % payloads and % first places (a payload holds U+001E: not JSON)',
      cardinality(v_which), cardinality(v_kinds), cardinality(v_payloads), cardinality(v_first_places);
  END IF;
  SELECT array_agg(l.id), array_agg(l.next_seq) INTO v_ids, v_nexts FROM (
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
  v_given := to_json(v_firsts)::text;
  -- Per session, the bytes its merged rows' first seqs add to what was sent (the mark's one).
  SELECT array_agg(coalesce(x.extra, 0) ORDER BY p.i) INTO v_extras
  FROM generate_series(1, cardinality(p_sessions)) AS p(i)
  LEFT JOIN (
    SELECT e.w, sum(length((v_firsts[e.w] + e.f)::text) - 1) AS extra
    FROM unnest(v_which, v_first_places) AS e(w, f)
    WHERE e.f >= 0 AND v_firsts[e.w] > 0 GROUP BY e.w
  ) x ON x.w = p.i;
  INSERT INTO acphub_events (session_id, seq, kind, payload, bytes, at)
  SELECT p_sessions[e.w], v_firsts[e.w] + e.k, e.kind,
    (CASE WHEN e.f < 0 THEN e.payload
      ELSE replace(e.payload, E'\\x1f', (v_firsts[e.w] + e.f)::text) END)::json,
    CASE WHEN e.f < 0 THEN e.size ELSE e.size - 1 + length((v_firsts[e.w] + e.f)::text) END,
    e.at
  FROM unnest(v_which, string_to_array(p_places, ',')::INTEGER[], v_first_places, v_kinds,
      v_payloads, string_to_array(p_sizes, ',')::INTEGER[], string_to_array(p_ats, ',')::BIGINT[])
    AS e(w, k, f, kind, payload, size, at)
  WHERE v_firsts[e.w] > 0;
  WITH upd AS (
    UPDATE acphub_sessions s SET next_seq = u.first + u.events,
      event_count = s.event_count + u.rows, bytes = s.bytes + u.size + u.extra,
      updated_at = GREATEST(s.updated_at, u.stamp)
    FROM unnest(p_sessions, v_firsts, p_counts, p_rows, p_totals, v_extras, p_stamps)
      AS u(id, first, events, rows, size, extra, stamp)
    WHERE s.id = u.id AND u.first > 0
    RETURNING s.id, u.first + u.events - 1 AS last,
      s.event_count > p_max_events OR s.bytes > p_max_bytes AS too_big
  )
  SELECT array_agg(id), array_agg(last), array_agg(id) FILTER (WHERE too_big)
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

/** Migration 15's statements. */
export const SCHEMA_15_SQL = WRITE_BATCH_V15;
