-- Formatting: how values are written in every answer. Timestamps as RFC 3339
-- UTC text, decimals as exact strings (prices are never floats).
-- Names start with an underscore: the web role may not call these helpers
-- (sql/99_grants.sql); the public api functions run them with the owner's
-- rights.
--
-- Helpers that build values row by row are plain SQL (no SET, no SECURITY
-- DEFINER, no subquery) and no less volatile than their bodies, so that the
-- planner inlines them into the calling query: an immutable function whose
-- body is only stable (to_char, date_trunc and arithmetic on timestamptz are)
-- is never inlined, and a call that is not inlined re-plans its body in every
-- query that runs it. The same holds for the helpers of sql/22..26.

-- api._ts(t): RFC 3339 UTC text, 'Z' suffix, fractional seconds only when present.
create function api._ts(t timestamptz)
returns text
language sql stable
as $$
    select case
        when t is null then null
        when date_trunc('second', t) = t
            then to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
        else rtrim(to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '0') || 'Z'
    end
$$;

-- api._dec(n): an exact decimal string without trailing zeros ("2.5", never
-- "2.5000000000"); null stays null. Prices are never floats.
create function api._dec(n numeric)
returns text
language sql immutable
as $$
    select trim_scale(n)::text
$$;
