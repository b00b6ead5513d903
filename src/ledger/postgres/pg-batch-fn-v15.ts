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

import { BATCH_FIRSTS, BATCH_FUNCTION_END } from "./pg-batch-fn-v14.js";

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
${BATCH_FIRSTS}
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
${BATCH_FUNCTION_END}`;

/** Migration 15's statements. */
export const SCHEMA_15_SQL = WRITE_BATCH_V15;
