-- api.get_model(id, include, as_of): GET /api/v1/models/{model_id}. Returns
--   {"as_of", "publish", "data": <model card>, "pagination": {count 1}}.
-- id: canonical id, provider API id or renamed slug; the card always shows the
-- canonical id (and requested_id as given). include: any of pricing,
-- deprecation, benchmarks, aliases, history_summary. as_of: a day whose prices
-- the card shows instead of the served publish's day.
-- The card carries the providers' lifecycle statements of the model
-- (`lifecycle`, by channel) and the one its status rests on (`status_source`).
-- Ordering: channels in the spec's order; price rows by channel, component,
-- tier; the history summary's series (every standard-tier price row, past,
-- current and scheduled: the price lines of the model page) by channel,
-- component, valid_from; conditional rates by channel, tier, component, above_input_tokens,
-- cache_ttl, region and time_window (its text form, api._window_text; nulls
-- first); benchmarks and aliases by name; events newest first.
-- Errors: PRMNF unknown id (did_you_mean).
-- Enums and ranges of the arguments: as the server checked them (docs/api.md).
create function api.get_model(p_id text, p_include text[], p_as_of date)
returns jsonb
language plpgsql stable
as $$
declare
    v_served record;
    v_id text;
    v_day date;
    v_card jsonb;
    v_m pricing.models;
begin
    select * into v_served from api._served();
    v_id := api._resolve_model(p_id);
    v_day := coalesce(p_as_of, v_served.day);
    select * into v_m from pricing.models as m where m.id = v_id;

    v_card := api._model_fields(v_m) || jsonb_build_object(
        'requested_id', p_id,
        'provider', (select jsonb_build_object('slug', p.slug, 'name', p.name)
                     from pricing.providers as p where p.slug = v_m.provider),
        'slug', v_m.slug,
        'deprecation_date', v_m.deprecation_date,
        'retirement_date', v_m.retirement_date,
        'successor', v_m.successor,
        -- the provider's statement the status rests on (null: active, none),
        -- and every statement read of the model, per channel
        'status_source', (
            select jsonb_build_object('channel', l.channel, 'source', l.source, 'url', l.url)
            from pricing.lifecycle_statements as l
            where l.model_id = v_id and l.decides),
        'lifecycle', (
            select coalesce(jsonb_agg(jsonb_build_object(
                       'channel', l.channel, 'announced', l.announced, 'shutdown', l.shutdown,
                       'not_before', l.not_before, 'successor', l.successor, 'source', l.source,
                       'url', l.url, 'decides', l.decides)
                       order by l.channel), '[]'::jsonb)
            from pricing.lifecycle_statements as l
            where l.model_id = v_id),
        'prices_as_of', v_day,
        'reference_price', (
            select api._price_summary(c.channel, c.input_usd, c.output_usd, c.cached_input_usd,
                                      c.blended_usd, c.last_verified_at, v_served.as_of)
            from api._channel_prices(v_day, array[v_id]) as c
            where c.reference_rank = 1),
        'prices', (
            select coalesce(jsonb_agg(
                       api._price_summary(c.channel, c.input_usd, c.output_usd, c.cached_input_usd,
                                          c.blended_usd, c.last_verified_at, v_served.as_of)
                       order by c.channel), '[]'::jsonb)
            from api._channel_prices(v_day, array[v_id]) as c));

    if 'pricing' = any (p_include) then
        v_card := v_card || jsonb_build_object('pricing', jsonb_build_object(
            'in_effect', (
                select coalesce(jsonb_agg(api._price_row(p, v_served.as_of)
                                          order by p.channel, p.component, p.tier), '[]'::jsonb)
                from pricing.prices as p
                where p.model_id = v_id
                  and p.valid_from <= v_day and (p.valid_to is null or p.valid_to > v_day)),
            'scheduled', (
                select coalesce(jsonb_agg(api._price_row(p, v_served.as_of)
                                          order by p.valid_from, p.channel, p.component, p.tier), '[]'::jsonb)
                from pricing.prices as p
                where p.model_id = v_id and p.valid_from > v_day),
            'conditional', (
                select coalesce(jsonb_agg(api._conditional_price_row(c, v_served.as_of)
                                          order by c.channel, c.tier, api._component_rank(c.component),
                                                   c.above_input_tokens nulls first,
                                                   c.cache_ttl nulls first, c.region nulls first,
                                                   api._window_text(c.time_window) nulls first),
                                 '[]'::jsonb)
                from pricing.conditional_prices as c
                where c.model_id = v_id
                  and c.valid_from <= v_day and (c.valid_to is null or c.valid_to > v_day))));
    end if;

    if 'deprecation' = any (p_include) then
        v_card := v_card || jsonb_build_object('deprecation', jsonb_build_object(
            'status', v_m.status,
            'deprecation_date', v_m.deprecation_date,
            'retirement_date', v_m.retirement_date,
            'successor', v_m.successor,
            'successor_name', (select s.name from pricing.models as s where s.id = v_m.successor),
            'events', (
                select coalesce(jsonb_agg(jsonb_build_object(
                           'id', e.id, 'event_type', e.event_type, 'channel', e.channel,
                           'effective_date', e.effective_date, 'significance', e.significance,
                           'old_value', e.old_value, 'new_value', e.new_value, 'detail', e.detail)
                           order by e.effective_date desc, e.id desc), '[]'::jsonb)
                from pricing.events as e
                where e.model_id = v_id and e.event_type in ('deprecation', 'retirement'))));
    end if;

    if 'benchmarks' = any (p_include) then
        v_card := v_card || jsonb_build_object('benchmarks', jsonb_build_object(
            'aggregate', (select api._dec(s.score) from api._benchmark_scores(array[v_id], 'aggregate') as s),
            'scores', (
                select coalesce(jsonb_agg(jsonb_build_object(
                           'benchmark', b.benchmark, 'score', api._dec(b.score), 'source', b.source,
                           'measured_on', b.measured_on) order by b.benchmark), '[]'::jsonb)
                from pricing.benchmarks as b
                where b.model_id = v_id)));
    end if;

    if 'aliases' = any (p_include) then
        v_card := v_card || jsonb_build_object('aliases', (
            select coalesce(jsonb_agg(jsonb_build_object('alias', a.alias, 'kind', a.kind, 'channel', a.channel)
                                      order by a.alias), '[]'::jsonb)
            from pricing.aliases as a
            where a.model_id = v_id));
    end if;

    if 'history_summary' = any (p_include) then
        v_card := v_card || jsonb_build_object('history_summary', (
            select jsonb_build_object(
                'price_changes', count(*) filter (where e.event_type = 'price_change'),
                'scheduled_changes', count(*) filter (where e.event_type = 'price_change_scheduled'),
                'first_price_date', (select min(p.valid_from) from pricing.prices as p where p.model_id = v_id),
                'last_change_date', max(e.effective_date) filter (where e.event_type = 'price_change'),
                'series', (
                    select coalesce(jsonb_agg(jsonb_build_object(
                                                  'channel', p.channel, 'component', p.component,
                                                  'usd_per_1m', api._dec(p.usd_per_1m),
                                                  'valid_from', p.valid_from, 'valid_to', p.valid_to)
                                              order by p.channel, p.component, p.valid_from), '[]'::jsonb)
                    from pricing.prices as p
                    where p.model_id = v_id and p.tier = 'standard'),
                'recent_changes', coalesce((
                    select jsonb_agg(api._event_item(r.x, v_m.name, p.as_of)
                                     order by (r.x).effective_date desc, (r.x).id desc)
                    from (select x from pricing.events as x
                          where x.model_id = v_id
                            and x.event_type in ('price_change', 'price_change_scheduled')
                          order by x.effective_date desc, x.id desc
                          limit 5) as r
                    join pricing.publishes as p on p.id = (r.x).publish_id), '[]'::jsonb))
            from pricing.events as e
            where e.model_id = v_id
              and e.event_type in ('price_change', 'price_change_scheduled')));
    end if;

    return api._envelope(
        v_served.id, v_served.as_of, v_card, api._pagination(1, 1, null),
        case
            when v_m.status <> 'active' and v_m.successor is not null
                then format('this model is %s; its successor is %s', v_m.status, v_m.successor)
            when v_m.status <> 'active'
                then format('this model is %s', v_m.status)
        end);
end
$$;
