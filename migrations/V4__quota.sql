-- Quota accounting (docs/keys.md). Both tables are the source of truth for
-- every server process sharing this database; the server reaches them only
-- through api.admit() and api.sweep_counters().
--
-- Unlogged: a counter write needs no WAL and no flush at commit, which keeps
-- accounting cheap. The price is that a database crash (not a clean restart)
-- empties them, granting every caller a fresh window once.
-- fillfactor 70 leaves room on each page so that the constant updates of
-- `used` and `tat_us` stay heap-only (HOT) and the indexes are left alone.

-- Requests used per subject in a fixed window of the subject's plan.
-- subject: 'ip:<address or /64>' for anonymous callers, 'key:<api_keys.id>'.
create unlogged table pricing.quota_windows (
    subject text not null,
    window_start timestamptz not null,
    window_end timestamptz not null,
    used integer not null check (used >= 0),
    -- units granted by the last call, read back by api.admit()
    last_grant integer not null default 0,
    primary key (subject, window_start)
) with (fillfactor = 70);

-- Burst limiting as a token bucket in GCRA form: one timestamp per subject,
-- the "theoretical arrival time" up to which the bucket is drawn. A row whose
-- tat_us lies in the past is the same as no row (a full bucket).
create unlogged table pricing.burst_buckets (
    subject text primary key,
    tat_us bigint not null,
    last_grant integer not null default 0
) with (fillfactor = 70);
