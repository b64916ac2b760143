/**
 * `fils_rate_limit_lease`: RateWindow.hit (src/domain/RateWindow.ts) with a share (RateLease): a slot remembers how
 * many of its requests are a share a server hands out up to a lease period later (`shares`), counted that much
 * longer than the window; what a share did not hand out is given back in the same statement as the next hit. A key's
 * window is the minute again (it was a lease period longer, so a refused request could be told 61 s), its ring of
 * slots the same size as before. `fils_rate_limit_take`, still called by servers not yet upgraded (for keys with a
 * 61-second window and no share), is redefined over the new function with its old signature and result, so that
 * every server keeps the shares right while both run.
 *
 * Keep this in step with RateWindow.hit: the contract suite checks both give the same decisions for the same inputs.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const lease = `
CREATE OR REPLACE FUNCTION fils_rate_limit_lease(
  p_bucket text, p_now_ms bigint, p_limit integer, p_window integer, p_count integer,
  p_share integer, p_lease_ms integer, p_back_at_ms bigint, p_back_count integer
)
RETURNS TABLE (
  granted integer, shared integer, counted_at bigint, remaining integer, reset_seconds integer,
  seconds bigint[], counts integer[], offsets integer[], shares integer[]
)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  lease_ms bigint := greatest(0, coalesce(p_lease_ms, 0));
  slots integer := p_window + 1 + ceil(greatest(0, coalesce(p_lease_ms, 0)) / 1000.0)::integer;
  window_ms bigint := p_window::bigint * 1000;
  now_ms bigint := p_now_ms;
  s bigint[];
  c integer[];
  o integer[];
  sh integer[];
  l bigint[];
  used integer := 0;
  frees_ms bigint;
  exact integer;
  n integer;
  k integer;
  i integer;
  sec bigint;
  same boolean;
  wait_s integer;
BEGIN
  INSERT INTO rate_limits AS r (bucket, seconds, counts, offsets, shares)
  VALUES (p_bucket, array_fill(0::bigint, ARRAY[slots]), array_fill(0, ARRAY[slots]), array_fill(999, ARRAY[slots]),
    array_fill(0, ARRAY[slots]))
  ON CONFLICT (bucket) DO NOTHING;
  SELECT r.seconds, r.counts, r.offsets, r.shares INTO s, c, o, sh FROM rate_limits AS r WHERE r.bucket = p_bucket FOR UPDATE;

  IF cardinality(s) IS DISTINCT FROM slots OR cardinality(c) IS DISTINCT FROM slots THEN
    s := array_fill(0::bigint, ARRAY[slots]);
    c := array_fill(0, ARRAY[slots]);
    o := NULL;
    sh := NULL;
  END IF;
  IF cardinality(o) IS DISTINCT FROM slots THEN o := array_fill(NULL::integer, ARRAY[slots]); END IF;
  IF cardinality(sh) IS DISTINCT FROM slots THEN sh := array_fill(0, ARRAY[slots]); END IF;
  l := array_fill(0::bigint, ARRAY[slots]);
  FOR i IN 1..slots LOOP
    l[i] := s[i] * 1000 + CASE WHEN o[i] BETWEEN 0 AND 999 THEN o[i] ELSE 999 END;
    sh[i] := CASE WHEN sh[i] > 0 THEN least(sh[i], c[i]) ELSE 0 END;
  END LOOP;

  -- What an earlier share did not hand out, back to its slot (if the slot still holds that second).
  IF coalesce(p_back_count, 0) > 0 THEN
    sec := floor(p_back_at_ms / 1000.0);
    i := (((sec % slots) + slots) % slots) + 1;
    IF s[i] = sec THEN
      k := least(p_back_count, sh[i]);
      sh[i] := sh[i] - k;
      c[i] := c[i] - k;
    END IF;
  END IF;

  FOR i IN 1..slots LOOP
    IF c[i] > 0 AND l[i] > now_ms AND l[i] <= p_now_ms + window_ms THEN now_ms := l[i]; END IF;
  END LOOP;

  FOR i IN 1..slots LOOP
    IF c[i] > 0 AND l[i] <= now_ms THEN
      exact := c[i] - sh[i];
      IF exact > 0 AND l[i] > now_ms - window_ms THEN
        used := used + exact;
        frees_ms := least(frees_ms, l[i] + window_ms);
      END IF;
      IF sh[i] > 0 AND l[i] > now_ms - window_ms - lease_ms THEN
        used := used + sh[i];
        frees_ms := least(frees_ms, l[i] + window_ms + lease_ms);
      END IF;
    END IF;
  END LOOP;

  n := least(p_count, greatest(0, p_limit - used));
  k := CASE WHEN n = p_count AND p_count > 0
    THEN least(greatest(0, coalesce(p_share, 0)),
      greatest(0, least(floor((p_limit - used - n) / 20.0)::integer, floor(p_limit / 2.0)::integer - used - n)))
    ELSE 0 END;
  IF n + k > 0 THEN
    sec := floor(now_ms / 1000.0);
    i := (sec % slots) + 1;
    same := s[i] = sec AND c[i] > 0;
    c[i] := CASE WHEN same THEN c[i] ELSE 0 END + n + k;
    sh[i] := CASE WHEN same THEN sh[i] ELSE 0 END + k;
    l[i] := CASE WHEN same THEN greatest(l[i], now_ms) ELSE now_ms END;
    s[i] := sec;
    frees_ms := least(frees_ms, now_ms + window_ms + CASE WHEN k > 0 THEN lease_ms ELSE 0 END);
  END IF;
  FOR i IN 1..slots LOOP
    o[i] := ((l[i] % 1000) + 1000) % 1000;
  END LOOP;
  IF n + k > 0 OR coalesce(p_back_count, 0) > 0 THEN
    UPDATE rate_limits AS r SET seconds = s, counts = c, offsets = o, shares = sh, updated_at = now()
    WHERE r.bucket = p_bucket;
  END IF;

  wait_s := CASE WHEN frees_ms IS NULL THEN 0 ELSE ceil((frees_ms - p_now_ms) / 1000.0)::integer END;
  RETURN QUERY SELECT
    n,
    k,
    now_ms,
    greatest(0, p_limit - used - n - k),
    least(p_window, greatest(CASE WHEN n = p_count THEN 0 ELSE 1 END, wait_s)),
    s,
    c,
    o,
    sh;
END
$fn$`

// The old entry point, same signature and result: old servers' decisions come from the new function too.
const take = `
CREATE OR REPLACE FUNCTION fils_rate_limit_take(
  p_bucket text, p_now_ms bigint, p_limit integer, p_window integer, p_count integer
)
RETURNS TABLE (granted integer, remaining integer, reset_seconds integer, seconds bigint[], counts integer[], offsets integer[])
LANGUAGE sql AS $fn$
  SELECT t.granted, t.remaining, t.reset_seconds, t.seconds, t.counts, t.offsets
  FROM fils_rate_limit_lease(p_bucket, p_now_ms, p_limit, p_window, p_count, 0, 0, 0, 0) AS t
$fn$`

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE rate_limits ADD COLUMN shares integer[]`
  yield* sql.unsafe(lease)
  yield* sql.unsafe(take)
})
