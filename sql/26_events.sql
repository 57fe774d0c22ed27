-- Events: a change event as served, and the date window that /changes,
-- history and the feeds read events in. Errors: PRARG, PRWIN.
-- Names start with an underscore: the web role may not call these helpers
-- (sql/99_grants.sql); the public api functions run them with the owner's
-- rights.

-- api._event_item(event, model_name, published_at): one change event as served
-- by /changes, the feeds, history (granularity=changes) and the card's
-- history_summary, given the name of its model and the as_of of its publish
-- (the caller joins pricing.models and pricing.publishes, so that this is
-- inlined). Prices in old_value/new_value are decimal strings in USD per 1M
-- tokens (unit says so); `condition` is the condition of a conditional rate's
-- price event (api._condition), null on every other event.
create function api._event_item(e pricing.events, p_model_name text, p_published_at timestamptz)
returns jsonb
language sql stable
as $$
    select jsonb_build_object(
        'id', e.id,
        'event_type', e.event_type,
        'model_id', e.model_id,
        'model_name', p_model_name,
        'provider', e.provider,
        'channel', e.channel,
        'component', e.component,
        'tier', e.tier,
        'condition', e.condition,
        'old_value', e.old_value,
        'new_value', e.new_value,
        'unit', case
            when e.event_type in ('price_change', 'price_change_scheduled') then 'usd_per_1m_tokens'
            when e.event_type = 'limit_change' then 'tokens'
        end,
        'change_pct', case
            when e.event_type in ('price_change', 'price_change_scheduled')
                 and e.old_value ~ '^[0-9.]+$' and e.new_value ~ '^[0-9.]+$'
                 and e.old_value::numeric > 0
                then api._dec(round((e.new_value::numeric - e.old_value::numeric) * 100 / e.old_value::numeric, 2))
        end,
        'significance', e.significance,
        'effective_date', e.effective_date,
        'published_at', api._ts(p_published_at),
        'detail', e.detail)
$$;

-- api._window(since, until): checks a date window of at most 365 days and
-- returns its bounds (lower, upper, last_day): since defaults to until - 365
-- days, until to today (UTC). `last_day` is until or its default; `upper` is
-- the same day, except that when until is null (not given) it is open
-- (infinity), so that already published future-dated events (scheduled price
-- changes) are included.
-- Errors: PRARG since after until, PRWIN window over 365 days.
create function api._window(p_since date, p_until date)
returns table (lower date, upper date, last_day date)
language plpgsql stable
as $$
declare
    v_today date := (now() at time zone 'UTC')::date;
    v_until date := coalesce(p_until, v_today);
    v_since date := coalesce(p_since, coalesce(p_until, v_today) - 365);
begin
    if v_since > v_until then
        perform api._raise_invalid('since',
            format('since (%s) is after until (%s)', v_since, v_until),
            'a date on or before until (until defaults to today, UTC)');
    end if;
    if v_until - v_since > 365 then
        raise exception using
            errcode = 'PRWIN',
            message = format('the window %s..%s spans %s days; at most 365 are allowed per call',
                             v_since, v_until, v_until - v_since),
            detail = jsonb_build_object('parameter', 'since', 'max_days', 365,
                                        'days', v_until - v_since)::text,
            hint = 'split the range into windows of at most 365 days (since..until) and make one call per window';
    end if;
    return query select v_since, case when p_until is null then 'infinity'::date else v_until end, v_until;
end
$$;
