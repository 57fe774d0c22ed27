-- Webhook deliveries (docs/webhooks.md): what the servers' delivery workers
-- (server/src/webhooks/worker.rs) call, on the web role, each in its own
-- short transaction, so that any number of servers share the work without
-- sending a delivery twice at once: making the deliveries of new publishes
-- and of shutdown reminders, taking due ones, recording each attempt.
-- A subscription matches an event when each filter it has holds (models,
-- provider, event types, minimum significance), and only while its key works.

-- api._webhook_matches(webhook, event): whether the subscription's filters
-- take the event.
create function api._webhook_matches(w pricing.webhooks, e pricing.events)
returns boolean
language sql stable
as $$
    select (w.models is null or e.model_id = any (w.models))
       and (w.provider is null or e.provider = w.provider)
       and (w.event_types is null or e.event_type = any (w.event_types))
       and e.significance >= w.min_significance
$$;

-- api._webhook_key_works(key_id): whether the key is neither revoked nor expired.
create function api._webhook_key_works(p_key_id bigint)
returns boolean
language sql stable
as $$
    select exists (
        select from pricing.api_keys as k
        where k.id = p_key_id and k.revoked_at is null
          and (k.expires_at is null or k.expires_at > now()))
$$;

-- api._webhook_payload(type, event item, at): the body of a delivery,
-- {"type", "timestamp", "data"} (Standard Webhooks' shape; `data` is the event
-- as /api/v1/changes serves it).
create function api._webhook_payload(p_type text, p_item jsonb, p_at timestamptz)
returns jsonb
language sql stable
as $$
    select jsonb_build_object('type', p_type, 'timestamp', api._ts(p_at), 'data', p_item)
$$;

-- api._message_id(): a new webhook-id, `msg_` and 32 hex digits.
create function api._message_id()
returns text
language sql volatile
as $$
    select 'msg_' || replace(gen_random_uuid()::text, '-', '')
$$;

-- api.webhook_fanout(): for every subscription of a working key that has not
-- seen the newest publish, one delivery (type `event.published`) per event of
-- the publishes it has not seen that it matches; then it has seen them.
-- Subscriptions another server is fanning out are skipped. Returns the
-- number of deliveries made.
create function api.webhook_fanout()
returns integer
language plpgsql
as $$
declare
    v_newest bigint := (select s.id from api._served(false) as s);
    v_ids bigint[];
    v_made integer;
begin
    select array_agg(w.id) into v_ids
    from (
        select x.id from pricing.webhooks as x
        where x.seen_publish < v_newest and api._webhook_key_works(x.key_id)
        order by x.id
        for update skip locked
    ) as w;
    if v_ids is null then
        return 0;
    end if;
    insert into pricing.webhook_deliveries (webhook_id, event_id, message_id, payload)
    select w.id, e.id, api._message_id(),
           api._webhook_payload('event.published', api._event_item(e, m.name, p.as_of), p.as_of)
    from pricing.webhooks as w
    join pricing.events as e on e.publish_id > w.seen_publish and e.publish_id <= v_newest
    join pricing.models as m on m.id = e.model_id
    join pricing.publishes as p on p.id = e.publish_id
    where w.id = any (v_ids) and api._webhook_matches(w, e)
    order by w.id, e.effective_date, e.id
    on conflict (webhook_id, event_id, reminder) do nothing;
    get diagnostics v_made = row_count;
    update pricing.webhooks as w set seen_publish = v_newest where w.id = any (v_ids);
    return v_made;
end
$$;

-- api.webhook_remind(today, stages): reminders of announced shutdowns. For
-- every retirement event of a later day than `today` that a provider's
-- statement still gives (pricing.lifecycle_statements: same model, channel
-- and shutdown day) and every subscription of a working key that matches it:
-- one delivery (type `retirement.reminder`, the event with detail.days_left)
-- for the smallest stage of `stages` (days before the shutdown, e.g. 90, 30,
-- 7) that the days left have reached, once per stage. A stage is skipped
-- when the subscription was sent the event itself at or after that stage.
-- Returns the number of reminders made.
create function api.webhook_remind(p_today date, p_stages integer [])
returns integer
language plpgsql
as $$
declare
    v_made integer;
begin
    insert into pricing.webhook_deliveries (webhook_id, event_id, reminder, days_left, message_id, payload)
    select w.id, e.id, st.stage, e.effective_date - p_today, api._message_id(),
           api._webhook_payload(
               'retirement.reminder',
               jsonb_set(api._event_item(e, m.name, p.as_of), '{detail,days_left}',
                         to_jsonb(e.effective_date - p_today)),
               date_trunc('second', now()))
    from pricing.events as e
    join pricing.lifecycle_statements as l
      on l.model_id = e.model_id and l.channel = coalesce(e.channel, 'official')
     and l.shutdown = e.effective_date
    join pricing.models as m on m.id = e.model_id
    join pricing.publishes as p on p.id = e.publish_id
    cross join lateral (
        select min(s) as stage from unnest(p_stages) as s where s >= e.effective_date - p_today
    ) as st
    join pricing.webhooks as w on api._webhook_matches(w, e)
    where e.event_type = 'retirement' and e.effective_date > p_today
      and st.stage is not null
      and api._webhook_key_works(w.key_id)
      and not exists (
          select from pricing.webhook_deliveries as x
          where x.webhook_id = w.id and x.event_id = e.id and x.reminder = 0
            and e.effective_date - (x.created_at at time zone 'UTC')::date <= st.stage)
    on conflict (webhook_id, event_id, reminder) do nothing;
    get diagnostics v_made = row_count;
    return v_made;
end
$$;

-- api.webhook_claim(slots, lease, per_key_hour): takes up to `slots` due
-- deliveries for attempts, at most one per subscription and none of a
-- subscription with an attempt in flight (its busy_until: so a slow receiver
-- holds one slot, whichever server it is on), oldest first, skipping keys
-- that made `per_key_hour` attempts this clock hour and subscriptions another
-- server is claiming. Each delivery and its subscription are leased for
-- `lease` and the attempt is counted. A delivery another server leased
-- meanwhile is not taken (the lease is checked again on the row it updates).
-- Returns what an attempt needs.
create function api.webhook_claim(p_slots integer, p_lease interval, p_per_key_hour integer)
returns table (
    delivery_id bigint, webhook_id bigint, url text, secret text, message_id text, body text,
    attempt integer, created_at timestamptz
)
language plpgsql
as $$
declare
    v_hour timestamptz := date_trunc('hour', now());
begin
    return query
    with ready as (
        select w.id, w.key_id
        from pricing.webhooks as w
        where (w.busy_until is null or w.busy_until <= now())
          and exists (select from pricing.webhook_deliveries as d
                      where d.webhook_id = w.id and d.status = 'pending' and d.next_attempt_at <= now()
                        and (d.leased_until is null or d.leased_until <= now()))
          and api._webhook_key_works(w.key_id)
          and coalesce((select a.attempts from pricing.webhook_attempts as a
                        where a.key_id = w.key_id and a.hour = v_hour), 0) < p_per_key_hour
        order by w.id
        limit p_slots
        for update of w skip locked
    ),
    picked as (
        select (select d.id from pricing.webhook_deliveries as d
                where d.webhook_id = r.id and d.status = 'pending' and d.next_attempt_at <= now()
                  and (d.leased_until is null or d.leased_until <= now())
                order by d.next_attempt_at, d.id
                limit 1) as id,
               r.id as webhook_id,
               r.key_id
        from ready as r
    ),
    leased as (
        update pricing.webhook_deliveries as d
        set leased_until = now() + p_lease, attempts = d.attempts + 1, last_attempt_at = now()
        from picked as p
        where d.id = p.id and d.status = 'pending'
          and (d.leased_until is null or d.leased_until <= now())
        returning d.id, d.webhook_id, d.message_id, d.payload, d.attempts, d.created_at
    ),
    busy as (
        update pricing.webhooks as w
        set busy_until = now() + p_lease
        from leased as l
        where w.id = l.webhook_id
    ),
    counted as (
        insert into pricing.webhook_attempts as a (key_id, hour, attempts)
        select w.key_id, v_hour, count(*)
        from leased as l
        join pricing.webhooks as w on w.id = l.webhook_id
        group by w.key_id
        on conflict (key_id, hour) do update set attempts = a.attempts + excluded.attempts
    )
    select l.id, l.webhook_id, w.url, w.secret, l.message_id, l.payload::text, l.attempts, l.created_at
    from leased as l
    join pricing.webhooks as w on w.id = l.webhook_id
    order by l.id;
end
$$;

-- api.webhook_record(delivery, delivered, http_status, error, retry_in,
-- give_up_after): the outcome of an attempt; its subscription is free for
-- the next. Delivered: done, never sent again. Otherwise another attempt
-- after retry_in, but no later than give_up_after past the delivery's
-- creation; an attempt at or past that time (or retry_in null) that fails
-- leaves it `failed`. A delivery no longer pending (or removed with its
-- subscription) is left as it is. Returns the status it has now (null when
-- removed).
create function api.webhook_record(
    p_delivery bigint, p_delivered boolean, p_status integer, p_error text, p_retry_in interval,
    p_give_up_after interval
)
returns text
language plpgsql
as $$
declare
    v_webhook bigint;
    v_status text;
begin
    update pricing.webhook_deliveries as d
    set status = o.status,
        last_status = p_status,
        last_error = left(p_error, 300),
        leased_until = null,
        next_attempt_at = case when o.status = 'pending' then o.next_attempt_at else d.next_attempt_at end,
        finished_at = case when o.status <> 'pending' then now() end
    from (
        select x.id,
               case
                   when p_delivered then 'delivered'
                   when p_retry_in is null or now() >= x.created_at + p_give_up_after then 'failed'
                   else 'pending'
               end as status,
               least(now() + p_retry_in, x.created_at + p_give_up_after) as next_attempt_at
        from pricing.webhook_deliveries as x
        where x.id = p_delivery
    ) as o
    where d.id = o.id and d.status = 'pending'
    returning d.webhook_id, d.status into v_webhook, v_status;
    if v_webhook is null then
        select d.webhook_id, d.status into v_webhook, v_status
        from pricing.webhook_deliveries as d where d.id = p_delivery;
    end if;
    update pricing.webhooks as w set busy_until = null where w.id = v_webhook;
    return v_status;
end
$$;

-- api.webhook_sweep(keep): forgets finished deliveries older than `keep`
-- and the attempt counts of past hours. Returns the deliveries removed.
create function api.webhook_sweep(p_keep interval)
returns integer
language plpgsql
as $$
declare
    v_removed integer;
begin
    delete from pricing.webhook_attempts as a where a.hour < date_trunc('hour', now());
    delete from pricing.webhook_deliveries as d
    where d.status <> 'pending' and d.finished_at < now() - p_keep;
    get diagnostics v_removed = row_count;
    return v_removed;
end
$$;
