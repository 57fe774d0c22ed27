-- api._burst_step(burst_per_second): microseconds per token of a bucket,
-- rounded up: never faster than the plan says.
create function api._burst_step(p_burst integer)
returns bigint
language sql immutable
as $$
    select (1000000 + p_burst - 1) / p_burst
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

-- api.admit_batch(subjects, plans, costs): takes up to `cost` requests
-- (cost >= 1) from the budget of each `subject` on its `plan`, atomically
-- across every server process sharing this database. A server sends the
-- requests waiting for admission, of any number of subjects, together this
-- way: each subject once, its waiting requests as its cost; the first
-- `granted` of them are admitted, in order.
--
-- Quota: fixed windows of the plan's window_seconds aligned to the Unix epoch
-- (an hour starts on the hour, a day at 00:00 UTC). Burst: a token bucket
-- (GCRA) of burst_per_second tokens refilling at burst_per_second per second.
-- A request is admitted only when both allow it; refused requests use up
-- neither.
--
-- Set-based: one upsert over all the windows, then one over all the buckets,
-- each taking its rows in byte order of subject, so that concurrent batches
-- of several servers lock counter rows in one order (every window before any
-- bucket) and cannot deadlock; then quota taken for requests the burst limit
-- refuses is given back, from rows this transaction holds locked.
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
-- (server/src/quota/lease.rs).
-- Raises 22023 when the arrays have unequal lengths, for an unknown plan, a
-- cost below 1, a null subject or a subject given twice (the whole batch is
-- then refused an answer).
create function api.admit_batch(p_subjects text[], p_plans text[], p_costs integer[])
returns table (
    ord integer, granted integer, quota integer, used integer, reset_at bigint,
    retry_after integer, refused_by text, wait_us bigint, burst integer
)
language plpgsql volatile
as $$
declare
    v_now_us bigint := (extract(epoch from clock_timestamp()) * 1000000)::bigint;
    v_now_s bigint := v_now_us / 1000000;
    v_bad text;
    v_back_subjects text[] := '{}';
    v_back_starts bigint[] := '{}';
    v_back_units integer[] := '{}';
    v_subject text;
    v_start bigint;
    v_back integer;
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

    for ord, granted, quota, used, reset_at, retry_after, refused_by, wait_us, burst,
        v_subject, v_start, v_back in
        with item as (
            select u.ord::integer as ord, u.subject, u.cost, pl.quota, pl.burst_per_second as burst,
                   api._burst_step(pl.burst_per_second) as step,
                   v_now_s - v_now_s % pl.window_seconds as start_s,
                   v_now_s - v_now_s % pl.window_seconds + pl.window_seconds as end_s
            from unnest(p_subjects, p_plans, p_costs) with ordinality as u (subject, plan, cost, ord)
            join pricing.plans as pl on pl.name = u.plan
        ),
        -- Quota first: an exhausted quota (the lasting state) then costs no
        -- write. The proposed row carries the plan's quota to the conflict
        -- branch, which sees no other input.
        counted as (
            insert into pricing.quota_windows as w
                (subject, window_start, window_end, used, last_grant, quota)
            select i.subject, to_timestamp(i.start_s), to_timestamp(i.end_s),
                   least(i.cost, i.quota), least(i.cost, i.quota), i.quota
            from item as i
            where i.quota is not null
            order by i.subject collate "C"
            on conflict (subject, window_start) do update
                set used = w.used + least(excluded.used, excluded.quota - w.used),
                    last_grant = least(excluded.used, excluded.quota - w.used),
                    quota = excluded.quota
                where w.used < excluded.quota
            returning w.subject, w.used, w.last_grant
        ),
        quota_taken as (
            select i.*,
                   case when i.quota is null then i.cost else coalesce(c.last_grant, 0) end as taken,
                   coalesce(c.used, i.quota) as used_after
            from item as i
            left join counted as c on c.subject = i.subject
        ),
        -- The bucket is drawn for what the quota allowed; a full bucket grants
        -- nothing and is left as it is, but still answers when it refills.
        drawn as (
            insert into pricing.burst_buckets as b (subject, tat_us, last_grant, burst)
            select q.subject, v_now_us + least(q.taken, q.burst) * q.step,
                   least(q.taken, q.burst), q.burst
            from quota_taken as q
            where q.burst is not null and q.taken > 0
            order by q.subject collate "C"
            on conflict (subject) do update
                set tat_us = greatest(b.tat_us, v_now_us)
                        + api._burst_step(excluded.burst) * greatest(0, least(excluded.last_grant,
                            (excluded.burst * api._burst_step(excluded.burst)
                             - (greatest(b.tat_us, v_now_us) - v_now_us))
                            / api._burst_step(excluded.burst))),
                    last_grant = greatest(0, least(excluded.last_grant,
                            (excluded.burst * api._burst_step(excluded.burst)
                             - (greatest(b.tat_us, v_now_us) - v_now_us))
                            / api._burst_step(excluded.burst))),
                    burst = excluded.burst
            returning b.subject, b.last_grant, b.tat_us
        ),
        decided as (
            select q.*, d.tat_us,
                   case when d.subject is null then q.taken else d.last_grant end as admitted
            from quota_taken as q
            left join drawn as d on d.subject = q.subject
        ),
        answered as (
            select x.*,
                   case when x.quota is null then 0 else x.taken - x.admitted end as back,
                   x.used_after - (x.taken - x.admitted) as used_now,
                   greatest(x.tat_us, v_now_us) - v_now_us - (x.burst - 1) * x.step as burst_wait
            from decided as x
        )
        select a.ord, a.admitted, a.quota, a.used_now,
               case when a.quota is not null then a.end_s end,
               case when a.admitted = a.cost then null
                    when a.quota is not null and a.used_now >= a.quota
                        then greatest(1, a.end_s - v_now_s)::integer
                    else greatest(1, (a.burst_wait + 999999) / 1000000)::integer end,
               case when a.admitted = a.cost then null
                    when a.quota is not null and a.used_now >= a.quota then 'quota'
                    else 'burst' end,
               case when a.admitted = a.cost then null
                    when a.quota is not null and a.used_now >= a.quota
                        then a.end_s * 1000000 - v_now_us
                    else greatest(0, a.burst_wait) end,
               a.burst, a.subject, a.start_s, a.back
        from answered as a
        order by a.ord
    loop
        return next;
        if v_back > 0 then
            v_back_subjects := v_back_subjects || v_subject;
            v_back_starts := v_back_starts || v_start;
            v_back_units := v_back_units || v_back;
        end if;
    end loop;

    -- Give back the quota taken for the requests the burst limit refused; the
    -- rows are still locked by this transaction, so this is exact.
    if cardinality(v_back_subjects) > 0 then
        update pricing.quota_windows as w
        set used = w.used - g.units
        from unnest(v_back_subjects, v_back_starts, v_back_units) as g (subject, start_s, units)
        where w.subject = g.subject and w.window_start = to_timestamp(g.start_s);
    end if;
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
-- server's lease, see server/src/quota/lease.rs): to the quota window ending at
-- `reset_at` (Unix seconds, as api.admit_batch returned it) and to the burst bucket.
-- Never below zero used, and a bucket given back more than it lent is simply
-- full. Returns the units given back to the window (0 when it has ended and
-- been swept, or the plan has no quota).
create function api.release(p_subject text, p_plan text, p_reset_at bigint, p_units integer)
returns integer
language plpgsql volatile
as $$
declare
    v_plan pricing.plans;
    v_released integer := 0;
begin
    if p_units is null or p_units < 1 then
        raise exception 'release: units must be at least 1, not %', p_units using errcode = '22023';
    end if;
    v_plan := api._plan(p_plan, 'release');
    if v_plan.quota is not null and p_reset_at is not null then
        with counted as (
            select x.used from pricing.quota_windows as x
            where x.subject = p_subject and x.window_end = to_timestamp(p_reset_at)
            for update
        )
        update pricing.quota_windows as w
        set used = w.used - least(c.used, p_units)
        from counted as c
        where w.subject = p_subject and w.window_end = to_timestamp(p_reset_at)
        returning least(c.used, p_units) into v_released;
        v_released := coalesce(v_released, 0);
    end if;
    if v_plan.burst_per_second is not null then
        update pricing.burst_buckets as b
        set tat_us = b.tat_us - p_units * api._burst_step(v_plan.burst_per_second)
        where b.subject = p_subject;
    end if;
    return v_released;
end
$$;

