-- Shard leases for admission in memory (docs/keys.md, "How it works";
-- server/src/access/quota/shards.rs).
--
-- The subjects are split into 64 shards by the first byte of the SHA-256 of
-- their name (api._shard in sql/62_admit.sql; the server computes the same).
-- A server process that holds a shard's lease is the only one that admits the
-- subjects of that shard on the plans it admits in memory, and writes their
-- counts back here; api.admit_batch answers for no subject of a shard another
-- process holds (it marks the shard wanted, and the holder gives it up).
--
-- Unlogged like the counters they go with: a database crash empties both,
-- and the rows are made again as they are needed.
create unlogged table pricing.admission_shards (
    shard smallint primary key check (shard >= 0 and shard < 64),
    -- The process holding the lease (a random number it drew at start);
    -- null: none, api.admit_batch admits the shard's subjects itself.
    owner bigint,
    lease_until timestamptz,
    -- The most requests the holder admits for one subject before their
    -- counts are written here: what its subjects are charged when its lease
    -- ends without being given back (pricing.admission_taints).
    pending_cap integer,
    -- Another process asked for one of the shard's subjects: the holder
    -- writes its counts back and gives the lease up.
    wanted boolean not null default false,
    -- Given up because it was wanted: no process claims it before this.
    shared_until timestamptz,
    check ((owner is null) = (lease_until is null))
) with (fillfactor = 50);

-- A lease that ended without being given back (its process died or stopped
-- answering): the counts it admitted since it last wrote them back are lost,
-- so every subject of the shard is charged `units` requests in the quota
-- window that contains `at` (the lease's end, after every request it
-- admitted), and its burst bucket counts as emptied at `at`. Applied to a
-- counter row once (admission_counters.taint_seen); deleted by
-- api.sweep_counters once no window can contain them.
create unlogged table pricing.admission_taints (
    shard smallint not null,
    at timestamptz not null,
    units integer not null check (units >= 0),
    primary key (shard, at)
);

-- Each counter row's shard (to load a shard's counts when its lease is
-- claimed), the length of its plan's window (to tell which window a taint
-- falls in), and the newest taint of its shard applied to it.
alter table pricing.admission_counters
    add column shard smallint,
    add column window_seconds integer,
    add column taint_seen timestamptz;
update pricing.admission_counters as c
set shard = get_byte(sha256(convert_to(c.subject, 'UTF8')), 0) % 64,
    window_seconds = (
        select p.window_seconds from pricing.plans as p
        where p.name = case
            when c.subject like 'ip:%' then 'anonymous'
            when c.subject like 'keys-for:%' then 'key_requests'
            else (select k.plan from pricing.api_keys as k
                  where 'key:' || k.id = c.subject)
        end
    );
alter table pricing.admission_counters alter column shard set not null;
create index admission_counters_shard on pricing.admission_counters (shard);
