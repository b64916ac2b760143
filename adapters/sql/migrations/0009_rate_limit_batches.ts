/**
 * `fils_rate_limit_hit` with a count: RateWindow.hit (src/domain/RateWindow.ts) for `p_count` requests decided at
 * once, so a server can count the requests that queued for one bucket while its previous hit was in flight in one
 * round trip. It answers how many were accepted (`granted`), the first ones in order. The four-argument version of
 * migration 0007 stays for servers not yet upgraded; both share the one row per bucket.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const createFunction = `
CREATE OR REPLACE FUNCTION fils_rate_limit_hit(
  p_bucket text, p_now_ms numeric, p_limit integer, p_window integer, p_count integer
)
RETURNS TABLE (granted integer, remaining integer, reset_seconds integer, seconds bigint[], counts integer[])
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
  n integer;
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

  n := least(p_count, greatest(0, p_limit - used));
  IF n > 0 THEN
    i := (now_s % slots) + 1;
    IF s[i] = now_s THEN c[i] := c[i] + n; ELSE c[i] := n; END IF;
    s[i] := now_s;
    IF earliest IS NULL OR now_s < earliest THEN earliest := now_s; END IF;
    UPDATE rate_limits AS r SET seconds = s, counts = c, updated_at = now() WHERE r.bucket = p_bucket;
  END IF;

  frees_ms := CASE WHEN earliest IS NULL THEN p_now_ms ELSE (earliest + p_window + 1) * 1000 END;
  RETURN QUERY SELECT
    n,
    greatest(0, p_limit - used - n),
    greatest(CASE WHEN n = p_count THEN 0 ELSE 1 END, ceil((frees_ms - p_now_ms) / 1000))::integer,
    s,
    c;
END
$fn$`

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(createFunction)
})
