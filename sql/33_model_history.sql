-- api._history_spans(model, channel, component, first_day, last_day): the
-- price series of a model for the daily history: every standard rate
-- (condition null) and conditional rate (its condition) with its price,
-- each row's [valid_from, valid_to) clipped to first_day..last_day (rows
-- outside it are left out), and the keys the points are ordered by:
-- component_rank (the spec's order, cache writes last), above_key (0 for no
-- threshold), ttl_key, region_key and window_key ('' for none; the window
-- by its text form, api._window_text). Component 'all' is null here; a cache
-- write is listed only then.
create function api._history_spans(
    p_id text, p_channel text, p_component text, p_first_day date, p_last_day date
)
returns table (
    channel pricing.channel, component text, tier pricing.service_tier, condition jsonb,
    usd_per_1m numeric, component_rank integer, above_key integer, ttl_key text,
    region_key text, window_key text, first_day date, last_day date
)
language sql stable
as $$
    select r.channel, r.component, r.tier, r.condition, r.usd_per_1m,
           api._component_rank(r.component), r.above_key, r.ttl_key, r.region_key,
           r.window_key,
           greatest(r.valid_from, p_first_day),
           least(coalesce(r.valid_to - 1, p_last_day), p_last_day)
    from (
        select p.channel, p.component::text as component, p.tier, null::jsonb as condition,
               p.usd_per_1m, 0 as above_key, '' as ttl_key, '' as region_key, '' as window_key,
               p.valid_from, p.valid_to
        from pricing.prices as p
        where p.model_id = p_id
        union all
        select c.channel, c.component, c.tier,
               api._condition(c.above_input_tokens, c.cache_ttl, c.region, c.time_window),
               c.usd_per_1m, coalesce(c.above_input_tokens, 0), coalesce(c.cache_ttl, ''),
               coalesce(c.region, ''), coalesce(api._window_text(c.time_window), ''),
               c.valid_from, c.valid_to
        from pricing.conditional_prices as c
        where c.model_id = p_id
    ) as r
    where (p_channel is null or r.channel::text = p_channel)
      and (p_component is null or r.component = p_component)
      and greatest(r.valid_from, p_first_day) <= least(coalesce(r.valid_to - 1, p_last_day), p_last_day)
$$;

-- api.model_history(id, component, channel, since, until, granularity, limit,
-- cursor): GET /api/v1/models/{model_id}/history. Returns
--   {"as_of", "publish", "data": {"model_id", "granularity", "since", "until", "items"}, "pagination"}.
-- granularity 'changes': the published price change events of the model
-- (price_change and price_change_scheduled), ordered by (effective_date, id)
-- ascending; a conditional rate's event carries its condition. granularity
-- 'daily': one point per day and price series (channel, component, tier,
-- condition: standard rates and conditional ones, api._history_spans) with the
-- price in effect that day, ordered by (date, channel, component, tier,
-- condition) ascending; days without a price in effect have no point. since defaults to until - 365 days, until to today (UTC); with
-- until omitted, 'changes' also lists scheduled (future-dated) changes.
-- Errors: PRMNF unknown id (did_you_mean); PRNPD the model has no price rows at
-- all for the channel / component asked for; PRWIN window over 365 days;
-- PRARG since after until; PRCUR bad cursor.
-- Enums and ranges of the arguments: as the server checked them (docs/api.md).
create function api.model_history(
    p_id text, p_component text, p_channel text, p_since date, p_until date,
    p_granularity text, p_limit integer, p_cursor text
)
returns jsonb
language plpgsql stable
as $$
declare
    v_served record;
    v_id text;
    v_component text := nullif(coalesce(p_component, 'all'), 'all');
    v_granularity text := coalesce(p_granularity, 'changes');
    v_window record;
    v_filters jsonb;
    v_key jsonb;
    v_total bigint;
    v_items jsonb;
    v_last jsonb;
    v_more boolean;
begin
    select * into v_served from api._served();
    v_id := api._resolve_model(p_id);
    select * into v_window from api._window(p_since, p_until);

    if not exists (
        select from pricing.prices as p
        where p.model_id = v_id
          and (p_channel is null or p.channel::text = p_channel)
          and (v_component is null or p.component::text = v_component)
    ) then
        raise exception using
            errcode = 'PRNPD',
            message = format('model %s has no price rows%s%s', v_id,
                             case when p_channel is not null then format(' on channel %s', p_channel) else '' end,
                             case when v_component is not null then format(' for component %s', v_component) else '' end),
            detail = jsonb_build_object(
                'model_id', v_id,
                'channels_with_prices', (
                    select coalesce(jsonb_agg(distinct p.channel), '[]'::jsonb)
                    from pricing.prices as p where p.model_id = v_id))::text,
            hint = 'try channel=official, or one of channels_with_prices, or omit channel and component';
    end if;

    v_filters := jsonb_build_object(
        'model_id', v_id, 'component', v_component, 'channel', p_channel, 'since', v_window.lower,
        'until', v_window.upper, 'granularity', v_granularity);
    v_key := api._cursor_read('history', v_served.id, v_filters, p_cursor);

    if v_granularity = 'changes' then
        select count(*) into v_total
        from pricing.events as e
        where e.model_id = v_id
          and e.event_type in ('price_change', 'price_change_scheduled')
          and (p_channel is null or e.channel::text = p_channel)
          and (v_component is null or e.component::text = v_component)
          and e.effective_date between v_window.lower and v_window.upper;

        -- The page and the next page's first row, in one read: the items of
        -- the page, and the key of its last row when there is a next one.
        select coalesce(jsonb_agg(api._event_item(r.e, m.name, p.as_of) order by r.n)
                            filter (where r.n <= p_limit), '[]'::jsonb),
               jsonb_agg(jsonb_build_array((r.e).effective_date, (r.e).id)) filter (where r.n = p_limit) -> 0,
               count(*) > p_limit
        into v_items, v_last, v_more
        from (
            select e, row_number() over (order by e.effective_date, e.id) as n
            from pricing.events as e
            where e.model_id = v_id
              and e.event_type in ('price_change', 'price_change_scheduled')
              and (p_channel is null or e.channel::text = p_channel)
              and (v_component is null or e.component::text = v_component)
              and e.effective_date between v_window.lower and v_window.upper
              and (v_key is null or (e.effective_date, e.id) > ((v_key ->> 0)::date, (v_key ->> 1)::bigint))
            order by e.effective_date, e.id
            limit p_limit + 1
        ) as r
        join pricing.models as m on m.id = (r.e).model_id
        join pricing.publishes as p on p.id = (r.e).publish_id;
    else
        select coalesce(sum(s.last_day - s.first_day + 1), 0) into v_total
        from api._history_spans(v_id, p_channel, v_component, v_window.lower, v_window.last_day) as s;

        -- A span's (limit + 1)-th day is preceded by its own earlier days, so
        -- no span needs more days than that for one page.
        with points as (
            select d::date as day, s.*
            from api._history_spans(v_id, p_channel, v_component,
                                    greatest(v_window.lower, (v_key ->> 0)::date),
                                    v_window.last_day) as s
            cross join lateral generate_series(s.first_day, least(s.last_day, s.first_day + p_limit),
                                               interval '1 day') as d
        )
        select coalesce(jsonb_agg(jsonb_build_object('date', r.day, 'channel', r.channel, 'component', r.component,
                                                     'tier', r.tier, 'usd_per_1m', api._dec(r.usd_per_1m),
                                                     'unit', 'usd_per_1m_tokens', 'condition', r.condition)
                                  order by r.n)
                            filter (where r.n <= p_limit), '[]'::jsonb),
               jsonb_agg(jsonb_build_array(r.day, r.channel, r.component_rank, r.tier, r.above_key,
                                           r.ttl_key, r.region_key, r.window_key))
                   filter (where r.n = p_limit) -> 0,
               count(*) > p_limit
        into v_items, v_last, v_more
        from (
            select pt.*, row_number() over (order by pt.day, pt.channel, pt.component_rank, pt.tier,
                                                     pt.above_key, pt.ttl_key, pt.region_key,
                                                     pt.window_key) as n
            from points as pt
            where v_key is null
               or (pt.day, pt.channel, pt.component_rank, pt.tier, pt.above_key, pt.ttl_key,
                   pt.region_key, pt.window_key)
                  > ((v_key ->> 0)::date, (v_key ->> 1)::pricing.channel, (v_key ->> 2)::integer,
                     (v_key ->> 3)::pricing.service_tier, (v_key ->> 4)::integer, v_key ->> 5,
                     coalesce(v_key ->> 6, ''), coalesce(v_key ->> 7, ''))
            order by pt.day, pt.channel, pt.component_rank, pt.tier, pt.above_key, pt.ttl_key,
                     pt.region_key, pt.window_key
            limit p_limit + 1
        ) as r;
    end if;

    return api._page(
        'history', v_served.id, v_served.as_of, v_filters,
        jsonb_build_object(
            'model_id', v_id,
            'requested_id', p_id,
            'granularity', v_granularity,
            'since', v_window.lower,
            'until', v_window.last_day,
            'includes_scheduled', v_window.upper = 'infinity'::date and v_granularity = 'changes',
            'items', v_items),
        v_total, v_last, v_more,
        'no price changes in this window; widen it with since/until (at most 365 days per call)');
end
$$;
