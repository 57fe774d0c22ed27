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

-- api.admit(subject, plan, cost): takes up to `cost` requests (cost >= 1) from
-- the budget of `subject` on `plan`, atomically across every server process
-- sharing this database. A server batches the requests of one subject that
-- arrive while its previous call is in flight into one call; the first
-- `granted` of them are admitted, in order.
--
-- Quota: fixed windows of the plan's window_seconds aligned to the Unix epoch
-- (an hour starts on the hour, a day at 00:00 UTC). Burst: a token bucket
-- (GCRA) of burst_per_second tokens refilling at burst_per_second per second.
-- A request is admitted only when both allow it; refused requests use up
-- neither.
--
-- Returns one row: granted (0..cost); quota (null: the plan has none); used
-- (requests used in the current window after this call, null without quota);
-- reset_at (Unix seconds, the end of the current window: when the quota fully
-- refills); retry_after (seconds a refused request should wait; null when all
-- were granted); refused_by ('quota' or 'burst'; null when all were granted);
-- wait_us (microseconds until a request could be admitted again: the exact
-- form of retry_after, so that a server can refuse locally until then);
-- burst (the plan's burst_per_second, null: unlimited), which bounds how many
-- units a server may take ahead of its requests (server/src/quota.rs, leases).
-- Raises 22023 for an unknown plan or a cost below 1.
create function api.admit(p_subject text, p_plan text, p_cost integer default 1)
returns table (
    granted integer, quota integer, used integer, reset_at bigint, retry_after integer,
    refused_by text, wait_us bigint, burst integer
)
language plpgsql volatile security definer
set search_path = pricing, pg_temp
as $$
declare
    v_plan pricing.plans;
    v_now_us bigint := (extract(epoch from clock_timestamp()) * 1000000)::bigint;
    v_now_s bigint := v_now_us / 1000000;
    v_start bigint;
    v_end bigint;
    v_grant integer := p_cost;
    v_used integer;
    v_burst integer;
    v_step bigint;
    v_tat bigint;
    v_burst_grant integer;
    v_wait bigint;
begin
    if p_cost is null or p_cost < 1 then
        raise exception 'admit: cost must be at least 1, not %', p_cost using errcode = '22023';
    end if;
    v_plan := api._plan(p_plan, 'admit');

    -- Quota first: an exhausted quota (the lasting state) then costs no write.
    if v_plan.quota is not null then
        v_start := v_now_s - v_now_s % v_plan.window_seconds;
        v_end := v_start + v_plan.window_seconds;
        insert into pricing.quota_windows as w (subject, window_start, window_end, used, last_grant)
        values (p_subject, to_timestamp(v_start), to_timestamp(v_end),
                least(p_cost, v_plan.quota), least(p_cost, v_plan.quota))
        on conflict (subject, window_start) do update
            set used = w.used + least(p_cost, v_plan.quota - w.used),
                last_grant = least(p_cost, v_plan.quota - w.used)
            where w.used < v_plan.quota
        returning w.used, w.last_grant into v_used, v_grant;
        if not found then
            return query select 0, v_plan.quota, v_plan.quota, v_end,
                                greatest(1, v_end - v_now_s)::integer, 'quota'::text,
                                v_end * 1000000 - v_now_us, v_plan.burst_per_second;
            return;
        end if;
    end if;

    if v_plan.burst_per_second is not null then
        v_burst := v_plan.burst_per_second;
        v_step := api._burst_step(v_burst);
        insert into pricing.burst_buckets as b (subject, tat_us, last_grant)
        values (p_subject, v_now_us + least(v_grant, v_burst) * v_step, least(v_grant, v_burst))
        on conflict (subject) do update
            set tat_us = greatest(b.tat_us, v_now_us) + v_step * least(v_grant,
                    (v_burst * v_step - (greatest(b.tat_us, v_now_us) - v_now_us)) / v_step),
                last_grant = least(v_grant,
                    (v_burst * v_step - (greatest(b.tat_us, v_now_us) - v_now_us)) / v_step)
            where greatest(b.tat_us, v_now_us) - v_now_us <= (v_burst - 1) * v_step
        returning b.last_grant, b.tat_us into v_burst_grant, v_tat;
        if not found then
            v_burst_grant := 0;
            select b.tat_us into v_tat from pricing.burst_buckets as b where b.subject = p_subject;
        end if;
        if v_burst_grant < v_grant then
            -- Give back the quota taken for the requests the burst limit refuses;
            -- the row is still locked by this transaction, so this is exact.
            if v_plan.quota is not null then
                update pricing.quota_windows as w
                set used = w.used - (v_grant - v_burst_grant)
                where w.subject = p_subject and w.window_start = to_timestamp(v_start);
                v_used := v_used - (v_grant - v_burst_grant);
            end if;
            v_grant := v_burst_grant;
        end if;
    end if;

    if v_grant = p_cost then
        return query select v_grant, v_plan.quota, v_used, v_end, null::integer, null::text,
                            null::bigint, v_plan.burst_per_second;
    elsif v_plan.quota is not null and v_used >= v_plan.quota then
        return query select v_grant, v_plan.quota, v_used, v_end,
                            greatest(1, v_end - v_now_s)::integer, 'quota'::text,
                            v_end * 1000000 - v_now_us, v_plan.burst_per_second;
    else
        -- until the bucket holds one token again
        v_wait := greatest(v_tat, v_now_us) - v_now_us - (v_burst - 1) * v_step;
        return query select v_grant, v_plan.quota, v_used, v_end,
                            greatest(1, (v_wait + 999999) / 1000000)::integer, 'burst'::text,
                            greatest(0, v_wait), v_plan.burst_per_second;
    end if;
end
$$;

-- api.release(subject, plan, reset_at, units): gives back `units` that
-- api.admit granted to `subject` but no request used (the unused rest of a
-- server's lease, see server/src/quota.rs): to the quota window ending at
-- `reset_at` (Unix seconds, as api.admit returned it) and to the burst bucket.
-- Never below zero used, and a bucket given back more than it lent is simply
-- full. Returns the units given back to the window (0 when it has ended and
-- been swept, or the plan has no quota).
create function api.release(p_subject text, p_plan text, p_reset_at bigint, p_units integer)
returns integer
language plpgsql volatile security definer
set search_path = pricing, pg_temp
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

-- api.admit_batch(subjects, plans, costs): api.admit for many subjects in one
-- call, one row per array element: ord (its 1-based position in the arrays)
-- and the columns of api.admit. A server sends the requests waiting for
-- admission, of any number of subjects, together this way; each subject should
-- appear once (with its requests as its cost). The subjects are admitted in
-- byte order of their names, whatever the order of the arrays, so that
-- concurrent batches of several servers lock counter rows in one order and
-- cannot deadlock. The arrays must have equal lengths; raises 22023 when they
-- do not, and as api.admit does for an unknown plan or a cost below 1 (the
-- whole batch is then refused an answer).
create function api.admit_batch(p_subjects text[], p_plans text[], p_costs integer[])
returns table (
    ord integer, granted integer, quota integer, used integer, reset_at bigint,
    retry_after integer, refused_by text, wait_us bigint, burst integer
)
language plpgsql volatile security definer
set search_path = pricing, pg_temp
as $$
declare
    v_item record;
begin
    if cardinality(p_subjects) is distinct from cardinality(p_plans)
       or cardinality(p_subjects) is distinct from cardinality(p_costs) then
        raise exception 'admit_batch: subjects, plans and costs must have equal lengths'
            using errcode = '22023';
    end if;
    for v_item in
        select u.subject, u.plan, u.cost, u.ord
        from unnest(p_subjects, p_plans, p_costs) with ordinality as u (subject, plan, cost, ord)
        order by u.subject collate "C", u.ord
    loop
        return query
        select v_item.ord::integer, a.granted, a.quota, a.used, a.reset_at, a.retry_after,
               a.refused_by, a.wait_us, a.burst
        from api.admit(v_item.subject, v_item.plan, v_item.cost) as a;
    end loop;
end
$$;
