/**
 * `fils_rate_limit_hit` again, now as RateWindow.hit does it since: the window's time never runs back. Servers
 * sharing a bucket reach its row out of order (a request timed at second n may take the lock after one timed at
 * n + 1 was counted); before, the later slot was skipped as "in the future" and the limit let a few more through at
 * each second boundary. The newest counted second within a window ahead of the caller's clock is taken as now.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const replaceFunction = `
CREATE OR REPLACE FUNCTION fils_rate_limit_hit(p_bucket text, p_now_ms numeric, p_limit integer, p_window integer)
RETURNS TABLE (allowed boolean, remaining integer, reset_seconds integer, seconds bigint[], counts integer[])
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  slots integer := p_window + 1;
  clock_s bigint := floor(p_now_ms / 1000);
  now_s bigint := floor(p_now_ms / 1000);
  oldest bigint;
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

  IF cardinality(s) IS DISTINCT FROM slots OR cardinality(c) IS DISTINCT FROM slots THEN
    s := array_fill(0::bigint, ARRAY[slots]);
    c := array_fill(0, ARRAY[slots]);
  END IF;

  FOR i IN 1..slots LOOP
    IF c[i] > 0 AND s[i] > now_s AND s[i] <= clock_s + p_window THEN now_s := s[i]; END IF;
  END LOOP;
  oldest := now_s - p_window;

  FOR i IN 1..slots LOOP
    IF s[i] >= oldest AND s[i] <= now_s AND c[i] > 0 THEN
      used := used + c[i];
      IF earliest IS NULL OR s[i] < earliest THEN earliest := s[i]; END IF;
    END IF;
  END LOOP;

  ok := used < p_limit;
  IF ok THEN
    i := (now_s % slots) + 1;
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
  yield* sql.unsafe(replaceFunction)
})
