-- api._burst_step(burst_per_second): microseconds per token of a bucket,
-- rounded up: never faster than the plan says.
create function api._burst_step(p_burst integer)
returns bigint
language sql immutable
as $$
    select (1000000 + p_burst - 1) / p_burst
$$;

-- api._in_memory(burst_per_second): whether the subjects of a plan with this
-- burst are admitted in memory by their shard's holder
-- (server/src/access/quota/shards.rs): a burst under 10 a second, which never
-- gets a lease (server/src/access/quota/lease.rs: at most what the bucket
-- refills in 100 ms), so that each of their requests would otherwise wait for
-- a call here. The servers read it with the plans (api.admission_plans).
create function api._in_memory(p_burst integer)
returns boolean
language sql immutable
as $$
    select p_burst is not null and p_burst < 10
$$;

-- api._plan(name, caller): the plan named so; raises 22023 (naming the
-- calling function) when there is none.
create function api._plan(p_name text, p_caller text)
returns pricing.plans
language plpgsql stable
as $$
declare
    v_plan pricing.plans;
begin
    select * into v_plan from pricing.plans as pl where pl.name = p_name;
    if not found then
        raise exception '%: there is no plan named %', p_caller, p_name using errcode = '22023';
    end if;
    return v_plan;
end
$$;

-- api._shard(subject): the shard (0..63) of a subject: the first byte of the
-- SHA-256 of its name, modulo 64 (server/src/access/quota/shards.rs computes
-- the same).
create function api._shard(p_subject text)
returns smallint
language sql immutable
as $$
    select (get_byte(sha256(convert_to(p_subject, 'UTF8')), 0) % 64)::smallint
$$;

-- api._settle_shards(shards): ends the leases among `shards` that expired
-- without being given back (their process died or stopped answering): each
-- becomes a taint (pricing.admission_taints: its subjects are charged what
-- the process may have admitted without writing it back) and the shard has no
-- owner. Skips shards another transaction holds locked (they are settled by
-- a later call): it never waits, so it cannot deadlock with a claim.
create function api._settle_shards(p_shards smallint[])
returns void
language sql volatile
as $$
    with ended as (
        select s.shard, s.lease_until, s.pending_cap
        from pricing.admission_shards as s
        where s.shard = any(p_shards) and s.owner is not null
          and s.lease_until < clock_timestamp()
        order by s.shard
        for update skip locked
    ),
    cleared as (
        update pricing.admission_shards as s
        set owner = null, lease_until = null, pending_cap = null, plans = null, wanted = false
        from ended as e
        where s.shard = e.shard
    )
    insert into pricing.admission_taints (shard, at, units)
    select e.shard, e.lease_until, coalesce(e.pending_cap, 0)
    from ended as e
    on conflict do nothing
$$;

-- api._apply_taints(subjects): charges the counter rows of `subjects` on
-- plans admitted in memory (by the plan's burst the row was last counted
-- with: api._in_memory; the dead holder counted no other subject) with
-- the taints of their shards they have not been charged yet
-- (admission_taints, newer than their taint_seen): the units of those that
-- fall in the row's current window, up to its quota, and a bucket emptied at
-- the newest one. Rows locked in byte order of subject, as api.admit_batch
-- locks them.
create function api._apply_taints(p_subjects text[])
returns void
language sql volatile
as $$
    with due as (
        select c.subject, t.units, t.last_at, w.end_s
        from pricing.admission_counters as c
        cross join lateral (
            select (floor(extract(epoch from clock_timestamp()))::bigint / c.window_seconds + 1)
                   * c.window_seconds as end_s
        ) as w
        cross join lateral (
            select coalesce(sum(x.units) filter (
                       where x.at >= to_timestamp(w.end_s - c.window_seconds)), 0)::integer as units,
                   max(x.at) as last_at
            from pricing.admission_taints as x
            where x.shard = c.shard and x.at > coalesce(c.taint_seen, '-infinity')
        ) as t
        where c.subject = any(p_subjects) and t.last_at is not null and api._in_memory(c.burst)
        order by c.subject collate "C"
        for update of c
    )
    update pricing.admission_counters as c
    set window_end = case when c.quota is not null and d.end_s is not null
                          then to_timestamp(d.end_s) else c.window_end end,
        used = case when c.quota is null or d.end_s is null then c.used
                    when c.window_end = to_timestamp(d.end_s) then least(c.quota, c.used + d.units)
                    else least(c.quota, d.units) end,
        tat_us = case when c.burst is null then c.tat_us
                      else greatest(c.tat_us, (extract(epoch from d.last_at) * 1000000)::bigint
                                              + c.burst * api._burst_step(c.burst)) end,
        taint_seen = d.last_at
    from due as d
    where c.subject = d.subject
$$;

-- api.admit_batch(subjects, plans, costs, owner): takes up to `cost` requests
-- (cost >= 1) from the budget of each `subject` on its `plan`, atomically
-- across every server process sharing this database. A server sends the
-- requests waiting for admission, of any number of subjects, together this
-- way: each subject once, its waiting requests as its cost; the first
-- `granted` of them are admitted, in order. `owner`: the calling process's
-- number for shard leases (null: none).
--
-- A subject whose shard another process holds (pricing.admission_shards,
-- server/src/access/quota/shards.rs), on a plan that process admits in
-- memory (the shard row's `plans`), is not admitted here: that process
-- counts it in memory. Its row answers `deferred` (granted 0), and the shard
-- is marked wanted, so that its holder writes its counts back and gives the
-- lease up; the caller asks again. A lease that has expired is settled first
-- (api._settle_shards). The shard rows are read FOR KEY SHARE, so that a
-- process claiming one of them waits for this admission to commit before it
-- loads the shard's counts.
--
-- Quota: fixed windows of the plan's window_seconds aligned to the Unix epoch
-- (an hour starts on the hour, a day at 00:00 UTC). Burst: a token bucket
-- (GCRA) of burst_per_second tokens refilling at burst_per_second per second.
-- A request is admitted only when both allow it; refused requests use up
-- neither.
--
-- Set-based: one upsert over all the subjects' counter rows (one row per
-- subject holds its window and its bucket), taking the rows in byte order of
-- subject, so that concurrent batches of several servers lock counter rows in
-- one order and cannot deadlock. Each subject is granted at once what both
-- its quota and its bucket allow, so nothing is taken and given back. Taints
-- of a subject's shard (a lease that ended without being given back) are
-- charged first: to existing rows by api._apply_taints, to new rows as they
-- are made.
--
-- Returns one row per array element: ord (its 1-based position in the
-- arrays); granted (0..cost); quota (null: the plan has none); used
-- (requests used in the current window after this call, null without quota);
-- reset_at (Unix seconds, the end of the current window: when the quota fully
-- refills; null without quota); retry_after (seconds a refused request should
-- wait; null when all were granted); refused_by ('quota' or 'burst'; null
-- when all were granted); wait_us (microseconds until a request could be
-- admitted again: the exact form of retry_after, so that a server can refuse
-- locally until then); burst (the plan's burst_per_second, null: unlimited),
-- which bounds how many units a server may take ahead of its requests
-- (server/src/access/quota/lease.rs); deferred (another process holds the
-- subject's shard: nothing granted nor refused, ask again).
-- Raises 22023 when the arrays have unequal lengths, for an unknown plan, a
-- cost below 1, a null subject or a subject given twice (the whole batch is
-- then refused an answer).
create function api.admit_batch(
    p_subjects text[], p_plans text[], p_costs integer[], p_owner bigint default null
)
returns table (
    ord integer, granted integer, quota integer, used integer, reset_at bigint,
    retry_after integer, refused_by text, wait_us bigint, burst integer, deferred boolean
)
language plpgsql volatile
as $$
declare
    v_now_us bigint := (extract(epoch from clock_timestamp()) * 1000000)::bigint;
    v_now_s bigint := v_now_us / 1000000;
    v_bad text;
    v_shards smallint[];
    v_held text[];
    v_other smallint[];
    v_tainted boolean;
begin
    if cardinality(p_subjects) is distinct from cardinality(p_plans)
       or cardinality(p_subjects) is distinct from cardinality(p_costs) then
        raise exception 'admit_batch: subjects, plans and costs must have equal lengths'
            using errcode = '22023';
    end if;
    select coalesce(u.cost::text, 'null') into v_bad
    from unnest(p_costs) as u (cost) where u.cost is null or u.cost < 1 limit 1;
    if found then
        raise exception 'admit: cost must be at least 1, not %', v_bad using errcode = '22023';
    end if;
    select coalesce(u.plan, 'null') into v_bad
    from unnest(p_plans) as u (plan)
    where not exists (select from pricing.plans as pl where pl.name = u.plan) limit 1;
    if found then
        raise exception 'admit: there is no plan named %', v_bad using errcode = '22023';
    end if;
    select coalesce(u.subject, 'null') into v_bad
    from unnest(p_subjects) as u (subject)
    group by u.subject having u.subject is null or count(*) > 1 limit 1;
    if found then
        raise exception 'admit_batch: subject % is null or given more than once; send each subject once, its requests as one cost', v_bad
            using errcode = '22023';
    end if;

    select array_agg(distinct api._shard(u.subject)) into v_shards
    from unnest(p_subjects) as u (subject);
    if exists (select from pricing.admission_shards as s
               where s.shard = any(v_shards) and s.lease_until < clock_timestamp()) then
        perform api._settle_shards(v_shards);
    end if;
    -- The shards another process holds; every shard of the batch locked
    -- against a claim until this commits.
    -- The shard rows exist before they are locked: a claim creates a row it
    -- does not find, and a batch that found no row to lock would count a
    -- subject the claim is loading meanwhile, a count the holder's write-back
    -- then overwrites. (The table is unlogged: after a crash the rows are
    -- made again.)
    insert into pricing.admission_shards (shard)
    select u.shard from unnest(v_shards) as u (shard)
    on conflict do nothing;
    -- The subjects the holder of their shard counts in memory: those on a
    -- plan it admits in memory (a subject of any other plan is counted here
    -- whoever holds its shard). The caller's own shards are deferred too:
    -- claimed after the request queued, their counts were loaded before this
    -- admission, and the holder's next write-back would overwrite a count
    -- made here; the caller admits them in memory when it asks again.
    select coalesce(array_agg(u.subject) filter (where h.owner is not null
                                                  and u.plan = any(h.plans)), '{}'),
           coalesce(array_agg(distinct h.shard) filter (where h.owner is not null
                                                         and h.owner is distinct from p_owner
                                                         and u.plan = any(h.plans)), '{}')
      into v_held, v_other
    from unnest(p_subjects, p_plans) as u (subject, plan)
    join (
        select s.shard, s.owner, s.plans
        from pricing.admission_shards as s
        where s.shard = any(v_shards)
        order by s.shard
        for key share
    ) as h on h.shard = api._shard(u.subject);
    if cardinality(v_other) > 0 then
        -- Shard rows are locked in shard order everywhere: no deadlock.
        update pricing.admission_shards as s set wanted = true
        where s.shard in (select x.shard from pricing.admission_shards as x
                          where x.shard = any(v_other) and not x.wanted
                          order by x.shard for update);
    end if;
    select exists (select from pricing.admission_taints as t where t.shard = any(v_shards))
        into v_tainted;
    if v_tainted then
        perform api._apply_taints(p_subjects);
    end if;

    return query
        with item as (
            select u.ord::integer as ord, u.subject, u.cost, pl.quota, pl.burst_per_second as burst,
                   api._burst_step(pl.burst_per_second) as step, pl.window_seconds,
                   v_now_s - v_now_s % pl.window_seconds + pl.window_seconds as end_s,
                   sh.shard, u.subject = any(v_held) as deferred
            from unnest(p_subjects, p_plans, p_costs) with ordinality as u (subject, plan, cost, ord)
            join pricing.plans as pl on pl.name = u.plan
            cross join lateral (select api._shard(u.subject) as shard) as sh
        ),
        -- What a new row starts from: nothing used and a full bucket, or,
        -- when its shard has taints, their units in this window and a
        -- bucket emptied at the newest.
        fresh as (
            select i.*, coalesce(t.units, 0) as t_used,
                   greatest(v_now_us, coalesce((extract(epoch from t.last_at) * 1000000)::bigint
                                               + i.burst * i.step, v_now_us)) as t_tat,
                   t.last_at
            from item as i
            left join lateral (
                select coalesce(sum(x.units) filter (
                           where x.at >= to_timestamp(i.end_s - i.window_seconds)), 0)::integer as units,
                       max(x.at) as last_at
                from pricing.admission_taints as x
                where v_tainted and x.shard = i.shard and api._in_memory(i.burst)
            ) as t on true
            where not i.deferred
        ),
        -- A stored row counts 0 used once its window has ended, and its
        -- bucket is full from its tat_us on; the grant is what the cost,
        -- the quota left and the tokens left all allow. The proposed row
        -- carries the cost and the plan's limits to the conflict branch,
        -- which sees no other input.
        counted as (
            insert into pricing.admission_counters as c
                (subject, shard, window_end, window_seconds, used, quota, tat_us, burst,
                 asked, last_grant, taint_seen)
            select f.subject, f.shard, to_timestamp(f.end_s), f.window_seconds,
                   case when f.quota is not null then least(f.quota, f.t_used) + g.n else 0 end,
                   f.quota, f.t_tat + coalesce(g.n * f.step, 0), f.burst, f.cost, g.n, f.last_at
            from fresh as f
            cross join lateral (
                select greatest(0, least(f.cost, coalesce(f.quota - f.t_used, f.cost),
                                         coalesce((f.burst * f.step - (f.t_tat - v_now_us)) / f.step,
                                                  f.cost))) as n
            ) as g
            where f.quota is not null or f.burst is not null
            order by f.subject collate "C"
            on conflict (subject) do update
                set (window_end, window_seconds, used, quota, tat_us, burst, asked, last_grant) = (
                    select excluded.window_end, excluded.window_seconds,
                           case when excluded.quota is not null then t.used + t.n else 0 end,
                           excluded.quota,
                           t.tat + coalesce(t.n * t.step, 0), excluded.burst, excluded.asked, t.n
                    from (
                        select s.used, s.tat, s.step,
                               greatest(0, least(excluded.asked,
                                   coalesce(excluded.quota - s.used, excluded.asked),
                                   coalesce((excluded.burst * s.step - (s.tat - v_now_us)) / s.step,
                                            excluded.asked))) as n
                        from (
                            select case when c.window_end = excluded.window_end
                                        then c.used else 0 end as used,
                                   greatest(c.tat_us, v_now_us) as tat,
                                   api._burst_step(excluded.burst) as step
                        ) as s
                    ) as t
                )
            returning c.subject, c.used, c.tat_us, c.last_grant
        ),
        answered as (
            select i.*, case when i.deferred then 0 else coalesce(c.last_grant, i.cost) end as admitted,
                   c.used as used_now,
                   greatest(c.tat_us, v_now_us) - v_now_us - (i.burst - 1) * i.step as burst_wait
            from item as i
            left join counted as c on c.subject = i.subject
        )
        select a.ord, a.admitted, a.quota,
               case when a.quota is not null and not a.deferred then a.used_now end,
               case when a.quota is not null and not a.deferred then a.end_s end,
               case when a.deferred or a.admitted = a.cost then null
                    when a.quota is not null and a.used_now >= a.quota
                        then greatest(1, a.end_s - v_now_s)::integer
                    else greatest(1, (a.burst_wait + 999999) / 1000000)::integer end,
               case when a.deferred or a.admitted = a.cost then null
                    when a.quota is not null and a.used_now >= a.quota then 'quota'
                    else 'burst' end,
               case when a.deferred or a.admitted = a.cost then null
                    when a.quota is not null and a.used_now >= a.quota
                        then a.end_s * 1000000 - v_now_us
                    else greatest(0, a.burst_wait) end,
               a.burst, a.deferred
        from answered as a
        order by a.ord;
end
$$;

-- api.admit(subject, plan, cost): api.admit_batch for one subject, its row
-- without `ord`.
create function api.admit(p_subject text, p_plan text, p_cost integer default 1)
returns table (
    granted integer, quota integer, used integer, reset_at bigint, retry_after integer,
    refused_by text, wait_us bigint, burst integer
)
language sql volatile
as $$
    select a.granted, a.quota, a.used, a.reset_at, a.retry_after, a.refused_by, a.wait_us, a.burst
    from api.admit_batch(array[p_subject], array[p_plan], array[p_cost]) as a
$$;

-- api.release(subject, plan, reset_at, units): gives back `units` that
-- api.admit_batch granted to `subject` but no request used (the unused rest of a
-- server's lease, see server/src/access/quota/lease.rs): to the quota window
-- ending at `reset_at` (Unix seconds, as api.admit_batch returned it), if it is
-- still the subject's current one, and to the burst bucket. Never below zero
-- used, and a bucket given back more than it lent is simply full. Returns the
-- units given back to the window (0 when it has ended, or the plan has no
-- quota).
create function api.release(p_subject text, p_plan text, p_reset_at bigint, p_units integer)
returns integer
language plpgsql volatile
as $$
declare
    v_plan pricing.plans;
    v_released integer;
begin
    if p_units is null or p_units < 1 then
        raise exception 'release: units must be at least 1, not %', p_units using errcode = '22023';
    end if;
    v_plan := api._plan(p_plan, 'release');
    with held as (
        select x.used,
               v_plan.quota is not null and x.window_end = to_timestamp(p_reset_at) as current
        from pricing.admission_counters as x
        where x.subject = p_subject
        for update
    )
    update pricing.admission_counters as c
    set used = c.used - case when h.current then least(h.used, p_units) else 0 end,
        tat_us = c.tat_us - coalesce(p_units * api._burst_step(v_plan.burst_per_second), 0)
    from held as h
    where c.subject = p_subject
    returning case when h.current then least(h.used, p_units) else 0 end into v_released;
    return coalesce(v_released, 0);
end
$$;


-- api.admission_plans(): every plan's limits (null: unlimited) and whether
-- its subjects are admitted in memory (api._in_memory), for a server that
-- admits subjects in memory (server/src/access/quota/shards.rs).
create function api.admission_plans()
returns table (
    name text, quota integer, window_seconds integer, burst_per_second integer, in_memory boolean
)
language sql stable
as $$
    select p.name, p.quota, p.window_seconds, p.burst_per_second,
           api._in_memory(p.burst_per_second)
    from pricing.plans as p
    order by p.name
$$;

-- api.claim_shards(owner, shards, lease_ms, pending_cap, max_rows, plans): takes the
-- leases of those of `shards` that nobody holds (an expired lease is settled
-- first), that were not given up as wanted within their cooldown
-- (shared_until) and that have at most `max_rows` live counter rows, for
-- `lease_ms` milliseconds. `pending_cap`: the most requests the caller admits
-- for one subject before writing them back (what its subjects are charged if
-- the lease ends without being given back). `plans`: the plans whose subjects
-- the caller admits in memory, as it read them (api.admission_plans): the
-- only subjects api.admit_batch defers to it, so that a change of the plans
-- never has a subject counted by both before the holder reads it and gives
-- its shards up. A shard an admission holds
-- locked is skipped (claimed by a later call): the lock is taken first and
-- the shard's counts are read by later statements, which see every admission
-- that committed before it. The claimed shards' rows are charged their
-- taints (api._apply_taints). Returns the claimed shards, each with its
-- taints (Unix microseconds and units, oldest first) for the subjects that
-- have no row yet.
create function api.claim_shards(
    p_owner bigint, p_shards smallint[], p_lease_ms integer, p_pending_cap integer,
    p_max_rows integer, p_plans text[]
)
returns table (shard smallint, taint_at_us bigint[], taint_units integer[])
language plpgsql volatile
as $$
declare
    v_claimed smallint[];
    v_crowded smallint[];
begin
    if p_owner is null or p_lease_ms is null or p_lease_ms < 1 or p_pending_cap is null
       or p_pending_cap < 0 or p_plans is null then
        raise exception 'claim_shards: owner, a lease of at least 1 ms, a pending cap and plans are needed'
            using errcode = '22023';
    end if;
    insert into pricing.admission_shards (shard)
    select u.shard from unnest(p_shards) as u (shard)
    where u.shard >= 0 and u.shard < 64
    on conflict do nothing;
    perform api._settle_shards(p_shards);
    with free as (
        select s.shard from pricing.admission_shards as s
        where s.shard = any(p_shards) and s.owner is null
          and (s.shared_until is null or s.shared_until < clock_timestamp())
        order by s.shard
        for update skip locked
    )
    update pricing.admission_shards as s
    set owner = p_owner, lease_until = clock_timestamp() + p_lease_ms * interval '1 ms',
        pending_cap = p_pending_cap, plans = p_plans, wanted = false
    from free as f
    where s.shard = f.shard;
    select coalesce(array_agg(s.shard), '{}') into v_claimed
    from pricing.admission_shards as s
    where s.shard = any(p_shards) and s.owner = p_owner;
    -- Too many live rows to hold in memory: given back at once.
    select coalesce(array_agg(x.shard), '{}') into v_crowded
    from unnest(v_claimed) as x (shard)
    where (select count(*) from (
               select from pricing.admission_counters as c
               where c.shard = x.shard
                 and (c.window_end > clock_timestamp()
                      or c.tat_us > (extract(epoch from clock_timestamp()) * 1000000)::bigint)
               limit p_max_rows + 1) as n) > p_max_rows;
    if cardinality(v_crowded) > 0 then
        update pricing.admission_shards as s
        set owner = null, lease_until = null, pending_cap = null, plans = null
        where s.shard = any(v_crowded);
    end if;
    perform api._apply_taints(array(
        select c.subject from pricing.admission_counters as c
        where c.shard = any(v_claimed) and not c.shard = any(v_crowded)
          and exists (select from pricing.admission_taints as t where t.shard = c.shard)
    ));
    return query
        select x.shard,
               coalesce(array_agg((extract(epoch from t.at) * 1000000)::bigint order by t.at)
                        filter (where t.at is not null), '{}'),
               coalesce(array_agg(t.units order by t.at) filter (where t.at is not null), '{}')
        from unnest(v_claimed) as x (shard)
        left join pricing.admission_taints as t on t.shard = x.shard
        where not x.shard = any(v_crowded)
        group by x.shard
        order by x.shard;
end
$$;

-- api.shard_counters(owner, shards): the live counter rows (window not ended
-- or bucket not full) of those of `shards` that `owner` holds: subject,
-- window end (Unix seconds), used, tat_us.
create function api.shard_counters(p_owner bigint, p_shards smallint[])
returns table (subject text, window_end bigint, used integer, tat_us bigint)
language sql stable
as $$
    select c.subject, extract(epoch from c.window_end)::bigint, c.used, c.tat_us
    from pricing.admission_counters as c
    join pricing.admission_shards as s on s.shard = c.shard and s.owner = p_owner
    where c.shard = any(p_shards)
      and (c.window_end > clock_timestamp()
           or c.tat_us > (extract(epoch from clock_timestamp()) * 1000000)::bigint)
$$;

-- api.shard_round(owner, held, lease_ms, release, cooldown_ms, subjects, shards,
-- plans, window_ends, used, tat_us): one round of a process that holds shard
-- leases, in one transaction. Renews the leases of `held` that it still holds
-- (a lease settled by another process is not its any more); writes the
-- counts of `subjects` (of `shards`, as api._shard computes them and the
-- server too, server/src/access/quota/shards.rs; on `plans`: window end in
-- Unix seconds, used, tat_us, as the process counted them) whose shard it
-- holds; then gives up
-- the leases of `release` it holds, after their counts are written, no
-- process claiming those that were wanted elsewhere again for
-- `cooldown_ms`. Returns, for each of
-- `held`: whether it is still held and whether another process wants it.
create function api.shard_round(
    p_owner bigint, p_held smallint[], p_lease_ms integer, p_release smallint[],
    p_cooldown_ms integer, p_subjects text[], p_shards smallint[], p_plans text[],
    p_window_ends bigint[], p_used integer[], p_tat_us bigint[]
)
returns table (shard smallint, held boolean, wanted boolean)
language plpgsql volatile
as $$
declare
    v_mine smallint[];
    v_wanted smallint[];
begin
    if p_owner is null or p_lease_ms is null or p_lease_ms < 1 then
        raise exception 'shard_round: owner and a lease of at least 1 ms are needed'
            using errcode = '22023';
    end if;
    with renewed as (
        update pricing.admission_shards as s
        set lease_until = clock_timestamp() + p_lease_ms * interval '1 ms'
        where s.shard in (select x.shard from pricing.admission_shards as x
                          where x.shard = any(p_held || p_release) and x.owner = p_owner
                          order by x.shard for update)
        returning s.shard, s.wanted
    )
    select coalesce(array_agg(r.shard), '{}'),
           coalesce(array_agg(r.shard) filter (where r.wanted), '{}')
    into v_mine, v_wanted
    from renewed as r;
    insert into pricing.admission_counters as c
        (subject, shard, window_end, window_seconds, used, quota, tat_us, burst, asked,
         last_grant, taint_seen)
    select u.subject, u.shard, to_timestamp(u.window_end), pl.window_seconds, u.used, pl.quota,
           u.tat_us, pl.burst_per_second, 0, 0, t.at
    from unnest(p_subjects, p_shards, p_plans, p_window_ends, p_used, p_tat_us)
        as u (subject, shard, plan, window_end, used, tat_us)
    join pricing.plans as pl on pl.name = u.plan
    -- The newest taint of each shard written, once per shard, not per row:
    -- a round writes thousands of rows of a few shards.
    left join (select x.shard, max(x.at) as at from pricing.admission_taints as x
               where x.shard = any(v_mine) group by x.shard) as t on t.shard = u.shard
    where u.shard = any(v_mine)
    order by u.subject collate "C"
    on conflict (subject) do update
        set (window_end, window_seconds, used, quota, tat_us, burst, taint_seen) = (
            excluded.window_end, excluded.window_seconds, excluded.used, excluded.quota,
            excluded.tat_us, excluded.burst, excluded.taint_seen
        );
    update pricing.admission_shards as s
    set owner = null, lease_until = null, pending_cap = null, plans = null, wanted = false,
        shared_until = case when s.wanted
                            then clock_timestamp() + p_cooldown_ms * interval '1 ms'
                            else s.shared_until end
    where s.shard = any(p_release) and s.owner = p_owner;
    return query
        select h.shard, h.shard = any(v_mine) and not h.shard = any(p_release),
               h.shard = any(v_wanted)
        from unnest(p_held) as h (shard);
end
$$;
