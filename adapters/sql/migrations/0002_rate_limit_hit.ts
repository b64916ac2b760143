/**
 * `fils_rate_limit_hit`: `RateWindow.hit` (src/domain/RateWindow.ts) inside the database, so one round trip decides
 * and any number of servers share a limit. The bucket's row is locked for the decision (INSERT … ON CONFLICT DO
 * NOTHING creates it, SELECT … FOR UPDATE takes it), so concurrent hits on one bucket are serialized; other buckets
 * are not touched. Like the memory store, the state is only written back when the request is allowed.
 *
 * Keep this in step with RateWindow.hit: the contract suite checks both give the same decisions for the same inputs.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const createFunction = `
CREATE FUNCTION fils_rate_limit_hit(p_bucket text, p_now_ms numeric, p_limit integer, p_window integer)
RETURNS TABLE (allowed boolean, remaining integer, reset_seconds integer, seconds bigint[], counts integer[])
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  slots integer := p_window + 1;
  now_s bigint := floor(p_now_ms / 1000);
  oldest bigint := now_s - p_window;
  s bigint[];
  c integer[];
  used integer := 0;
  earliest bigint;
  ok boolean;
  i integer;
  frees_ms numeric;
BEGIN
  INSERT INTO rate_limits AS r (bucket, seconds, counts)
  VALUES (p_bucket, array_fill(0::bigint, ARRAY[slots]), array_fill(0, ARRAY[slots]))
  ON CONFLICT (bucket) DO NOTHING;
  SELECT r.seconds, r.counts INTO s, c FROM rate_limits AS r WHERE r.bucket = p_bucket FOR UPDATE;

  -- A state made for another window size starts afresh (RateWindow.hit does the same).
  IF cardinality(s) IS DISTINCT FROM slots OR cardinality(c) IS DISTINCT FROM slots THEN
    s := array_fill(0::bigint, ARRAY[slots]);
    c := array_fill(0, ARRAY[slots]);
  END IF;

  FOR i IN 1..slots LOOP
    IF s[i] >= oldest AND s[i] <= now_s AND c[i] > 0 THEN
      used := used + c[i];
      IF earliest IS NULL OR s[i] < earliest THEN earliest := s[i]; END IF;
    END IF;
  END LOOP;

  ok := used < p_limit;
  IF ok THEN
    i := (now_s % slots) + 1; -- arrays are 1-based; slot index = second mod slots, as in RateWindow
    IF s[i] = now_s THEN c[i] := c[i] + 1; ELSE c[i] := 1; END IF;
    s[i] := now_s;
    IF earliest IS NULL OR now_s < earliest THEN earliest := now_s; END IF;
    UPDATE rate_limits AS r SET seconds = s, counts = c, updated_at = now() WHERE r.bucket = p_bucket;
  END IF;

  frees_ms := CASE WHEN earliest IS NULL THEN p_now_ms ELSE (earliest + p_window + 1) * 1000 END;
  RETURN QUERY SELECT
    ok,
    greatest(0, p_limit - used - CASE WHEN ok THEN 1 ELSE 0 END),
    greatest(CASE WHEN ok THEN 0 ELSE 1 END, ceil((frees_ms - p_now_ms) / 1000))::integer,
    s,
    c;
END
$fn$`

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(createFunction)
})
