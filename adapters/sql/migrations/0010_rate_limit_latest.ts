/**
 * Each rate-limit slot remembers when its latest request came (`offsets`: the millisecond within the slot's second),
 * and `fils_rate_limit_take` is RateWindow.hit (src/domain/RateWindow.ts) over it: a slot counts until a full window
 * has passed since its latest request, so a refused request's wait is exact and at most the window (60 s, never
 * 61). A slot without an offset (written before) is taken to end at its second's last millisecond, as before.
 * `fils_rate_limit_hit`, still called by servers not yet upgraded, is redefined over the new function with its old
 * signature and result, so that every server keeps the offsets right while both run.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const take = `
CREATE OR REPLACE FUNCTION fils_rate_limit_take(
  p_bucket text, p_now_ms bigint, p_limit integer, p_window integer, p_count integer
)
RETURNS TABLE (granted integer, remaining integer, reset_seconds integer, seconds bigint[], counts integer[], offsets integer[])
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  slots integer := p_window + 1;
  window_ms bigint := p_window::bigint * 1000;
  now_ms bigint := p_now_ms;
  s bigint[];
  c integer[];
  o integer[];
  l bigint[];
  used integer := 0;
  earliest bigint;
  n integer;
  i integer;
  sec bigint;
  frees_ms bigint;
BEGIN
  INSERT INTO rate_limits AS r (bucket, seconds, counts, offsets)
  VALUES (p_bucket, array_fill(0::bigint, ARRAY[slots]), array_fill(0, ARRAY[slots]), array_fill(999, ARRAY[slots]))
  ON CONFLICT (bucket) DO NOTHING;
  SELECT r.seconds, r.counts, r.offsets INTO s, c, o FROM rate_limits AS r WHERE r.bucket = p_bucket FOR UPDATE;

  IF cardinality(s) IS DISTINCT FROM slots OR cardinality(c) IS DISTINCT FROM slots THEN
    s := array_fill(0::bigint, ARRAY[slots]);
    c := array_fill(0, ARRAY[slots]);
    o := NULL;
  END IF;
  IF cardinality(o) IS DISTINCT FROM slots THEN o := array_fill(NULL::integer, ARRAY[slots]); END IF;
  l := array_fill(0::bigint, ARRAY[slots]);
  FOR i IN 1..slots LOOP
    l[i] := s[i] * 1000 + CASE WHEN o[i] BETWEEN 0 AND 999 THEN o[i] ELSE 999 END;
  END LOOP;

  FOR i IN 1..slots LOOP
    IF c[i] > 0 AND l[i] > now_ms AND l[i] <= p_now_ms + window_ms THEN now_ms := l[i]; END IF;
  END LOOP;

  FOR i IN 1..slots LOOP
    IF c[i] > 0 AND l[i] > now_ms - window_ms AND l[i] <= now_ms THEN
      used := used + c[i];
      IF earliest IS NULL OR l[i] < earliest THEN earliest := l[i]; END IF;
    END IF;
  END LOOP;

  n := least(p_count, greatest(0, p_limit - used));
  IF n > 0 THEN
    sec := floor(now_ms / 1000.0);
    i := (sec % slots) + 1;
    IF s[i] = sec AND c[i] > 0 THEN
      c[i] := c[i] + n;
      l[i] := greatest(l[i], now_ms);
    ELSE
      c[i] := n;
      l[i] := now_ms;
    END IF;
    s[i] := sec;
    IF earliest IS NULL OR now_ms < earliest THEN earliest := now_ms; END IF;
  END IF;
  FOR i IN 1..slots LOOP
    o[i] := ((l[i] % 1000) + 1000) % 1000;
  END LOOP;
  IF n > 0 THEN
    UPDATE rate_limits AS r SET seconds = s, counts = c, offsets = o, updated_at = now() WHERE r.bucket = p_bucket;
  END IF;

  frees_ms := CASE WHEN earliest IS NULL THEN p_now_ms ELSE earliest + window_ms END;
  RETURN QUERY SELECT
    n,
    greatest(0, p_limit - used - n),
    least(p_window, greatest(CASE WHEN n = p_count THEN 0 ELSE 1 END, ceil((frees_ms - p_now_ms) / 1000.0)))::integer,
    s,
    c,
    o;
END
$fn$`

// The old entry point, same signature and result: old servers' decisions come from the new window too.
const hit = `
CREATE OR REPLACE FUNCTION fils_rate_limit_hit(
  p_bucket text, p_now_ms numeric, p_limit integer, p_window integer, p_count integer
)
RETURNS TABLE (granted integer, remaining integer, reset_seconds integer, seconds bigint[], counts integer[])
LANGUAGE sql AS $fn$
  SELECT t.granted, t.remaining, t.reset_seconds, t.seconds, t.counts
  FROM fils_rate_limit_take(p_bucket, floor(p_now_ms)::bigint, p_limit, p_window, p_count) AS t
$fn$`

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE rate_limits ADD COLUMN offsets integer[]`
  yield* sql.unsafe(take)
  yield* sql.unsafe(hit)
})
