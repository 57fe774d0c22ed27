-- One counter row per subject in place of a quota window row and a burst
-- bucket row (V4, V9): api.admit_batch (sql/62_admit.sql) then upserts one
-- row per subject, in one statement per batch, instead of two rows in two
-- tables. The old rows are dropped, not copied: the counters are unlogged
-- (emptied by any crash anyway), so a deploy of this version grants every
-- caller a fresh window and a full bucket once (docs/keys.md).
drop table pricing.quota_windows;
drop table pricing.burst_buckets;

-- subject: 'ip:<address or /64>' for anonymous callers, 'key:<api_keys.id>'.
-- Unlogged and fillfactor 70 for the reasons given in V4: no WAL per counter
-- write, and room on each page for heap-only updates.
create unlogged table pricing.admission_counters (
    subject text primary key,
    -- The end of the fixed window that `used` counts in; a row whose window
    -- has ended counts as 0 used.
    window_end timestamptz not null,
    used integer not null check (used >= 0),
    -- The plan's quota as of the row's last admission (null: none).
    quota integer,
    -- Burst limiting as a token bucket in GCRA form: the "theoretical arrival
    -- time" (Unix microseconds) up to which the bucket is drawn; in the past,
    -- the bucket is full.
    tat_us bigint not null,
    -- The plan's burst_per_second as of the row's last admission (null: none).
    burst integer,
    -- Units the last call asked for, and how many it was granted: the
    -- conflict branch of the upsert sees only the stored and the proposed
    -- row, so the proposed row carries the cost, and the grant is read back.
    asked integer not null,
    last_grant integer not null
) with (fillfactor = 70);
