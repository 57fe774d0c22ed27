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
-- Set-based: one upsert over all the subjects' counter rows (one row per
-- subject holds its window and its bucket), taking the rows in byte order of
-- subject, so that concurrent batches of several servers lock counter rows in
-- one order and cannot deadlock. Each subject is granted at once what both
-- its quota and its bucket allow, so nothing is taken and given back.
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

    return query
        with item as (
            select u.ord::integer as ord, u.subject, u.cost, pl.quota, pl.burst_per_second as burst,
                   api._burst_step(pl.burst_per_second) as step,
                   v_now_s - v_now_s % pl.window_seconds + pl.window_seconds as end_s
            from unnest(p_subjects, p_plans, p_costs) with ordinality as u (subject, plan, cost, ord)
            join pricing.plans as pl on pl.name = u.plan
        ),
        -- A new row is a window with nothing used and a full bucket. A stored
        -- one counts 0 used once its window has ended, and its bucket is
        -- full from its tat_us on; the grant is what the cost, the quota
        -- left and the tokens left all allow. The proposed row carries the
        -- cost and the plan's limits to the conflict branch, which sees no
        -- other input.
        counted as (
            insert into pricing.admission_counters as c
                (subject, window_end, used, quota, tat_us, burst, asked, last_grant)
            select i.subject, to_timestamp(i.end_s), case when i.quota is not null then g.n else 0 end,
                   i.quota,
                   v_now_us + coalesce(g.n * i.step, 0), i.burst, i.cost, g.n
            from item as i
            cross join lateral (
                select least(i.cost, coalesce(i.quota, i.cost), coalesce(i.burst, i.cost)) as n
            ) as g
            where i.quota is not null or i.burst is not null
            order by i.subject collate "C"
            on conflict (subject) do update
                set (window_end, used, quota, tat_us, burst, asked, last_grant) = (
                    select excluded.window_end,
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
            select i.*, coalesce(c.last_grant, i.cost) as admitted, c.used as used_now,
                   greatest(c.tat_us, v_now_us) - v_now_us - (i.burst - 1) * i.step as burst_wait
            from item as i
            left join counted as c on c.subject = i.subject
        )
        select a.ord, a.admitted, a.quota,
               case when a.quota is not null then a.used_now end,
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
               a.burst
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

