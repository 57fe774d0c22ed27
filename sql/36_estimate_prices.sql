-- api.estimate_prices(ids, as_of, channel): the prices POST /api/v1/estimate computes with
-- (the arithmetic is the estimator crate's, in the server). Returns
--   {"as_of", "publish", "default_selection": bool, "models": [...]}.
-- ids: at most 10 model ids (canonical, provider API id or renamed slug),
-- distinct after resolution, in the order given; null = the 10 active chat
-- models (kind `chat`) with the lowest blended reference price on that day,
-- ties by id.
-- as_of: the day whose prices to take; null = the served publish's day. Model
-- attributes (status, modality, names) are the served publish's, as in
-- api.list_models.
-- channel: null = each model's reference channel (api._channel_prices:
-- official when it has standard input and output prices, else the channel
-- with the lowest blended price among those with both); a channel's name (a
-- label of pricing.channel) = that channel for every model. A model that
-- returns no output tokens (kind embedding or rerank) needs an input price
-- only: without an output price it is billed no output (the estimator says
-- so in its assumptions).
-- Per model, from its channel, in effect on the day: `prices`, the
-- standard-tier input, output and cached_input and batch-tier input, output
-- and cached_input where published; `rates`, every rate (standard price rows
-- of every tier and conditional rates: context-length tiers, cache writes),
-- ordered by tier and component in the spec's orders (cache_write last), then
-- above_input_tokens, cache_ttl, region and time_window (its text form,
-- api._window_text), nulls first.
-- Errors: PRARG duplicates; PRMNF an unknown id (did_you_mean); PRNPD a model
-- without standard input and output prices (an input price, for a model that
-- returns no output tokens) on any channel (on the given channel) that day.
-- Enums and ranges of the arguments: as the server checked them (docs/api.md).
create function api.estimate_prices(p_ids text[], p_as_of date, p_channel text)
returns jsonb
language plpgsql stable
as $$
declare
    v_served record;
    v_day date;
    v_ids text[] := '{}';
    v_unpriced text;
    v_models jsonb;
    -- text in the signature: the web role cannot name the types of schema pricing
    v_channel pricing.channel := p_channel::pricing.channel;
begin
    select * into v_served from api._served();
    v_day := coalesce(p_as_of, v_served.day);
    if p_ids is not null then
        v_ids := api._resolve_models(p_ids, 'model_ids', 'an array of 1 to 10 different model ids');
    else
        -- The listing of the served publish; with as_of, the reference
        -- prices of that day (api._channel_prices, the rows the listing is
        -- built from) of the active chat models alone: building every
        -- listing row of the day with its item would cost tens of times more.
        if p_as_of is null then
            select coalesce(array_agg(c.model_id order by c.k_blended, c.model_id), '{}') into v_ids
            from (
                select l.model_id, l.k_blended
                from pricing.model_listing as l
                where l.scope = 'any' and l.status = 'active' and l.kind = 'chat'
                  and l.input_usd is not null and l.output_usd is not null
                order by l.k_blended, l.model_id
                limit 10
            ) as c;
        else
            select coalesce(array_agg(c.model_id order by c.blended_usd, c.model_id), '{}') into v_ids
            from (
                select cp.model_id, cp.blended_usd
                from api._channel_prices(v_day, array(
                         select m.id from pricing.models as m
                         where m.status = 'active' and m.kind = 'chat')) as cp
                where cp.reference_rank = 1
                  and cp.input_usd is not null and cp.output_usd is not null
                order by cp.blended_usd, cp.model_id
                limit 10
            ) as c;
        end if;
    end if;

    with chosen as (
        select x.n, x.id, c.channel, c.last_verified_at
        from unnest(v_ids) with ordinality as x (id, n)
        left join lateral (
            select cp.channel, cp.last_verified_at
            from api._channel_prices(v_day, array[x.id]) as cp
            where cp.input_usd is not null
              and (cp.output_usd is not null
                   or (select md.kind in ('embedding', 'rerank') from pricing.models as md where md.id = x.id))
              and case when p_channel is null then cp.reference_rank = 1
                       else cp.channel = v_channel end
        ) as c on true
    )
    select min(ch.id) filter (where ch.channel is null),
           jsonb_agg(jsonb_build_object(
               'requested_id', coalesce(p_ids[ch.n], ch.id),
               'model_id', ch.id,
               'name', m.name,
               'provider', m.provider,
               'kind', m.kind,
               'status', m.status,
               'channel', ch.channel,
               'last_verified_at', api._ts(pr.verified),
               'is_stale', api._is_stale(pr.verified, v_served.as_of),
               'prices', pr.prices,
               'rates', r.rates) order by ch.n)
    into v_unpriced, v_models
    from chosen as ch
    join pricing.models as m on m.id = ch.id
    left join lateral (
        select min(p.last_verified_at) as verified,
               jsonb_object_agg(
                   case when p.tier = 'batch' then 'batch_' else '' end || p.component::text,
                   api._dec(p.usd_per_1m)) as prices
        from pricing.prices as p
        where p.model_id = ch.id and p.channel = ch.channel
          and p.tier in ('standard', 'batch')
          and p.valid_from <= v_day and (p.valid_to is null or p.valid_to > v_day)
    ) as pr on true
    left join lateral (
        select coalesce(jsonb_agg(jsonb_build_object(
                   'component', x.component,
                   'tier', x.tier,
                   'above_input_tokens', x.above_input_tokens,
                   'cache_ttl', x.cache_ttl,
                   'region', x.region,
                   'time_window', x.time_window,
                   'usd_per_1m', api._dec(x.usd_per_1m),
                   'source', x.source,
                   'last_verified_at', api._ts(x.last_verified_at),
                   'promotion', x.promotion)
                   order by x.tier, api._component_rank(x.component),
                            x.above_input_tokens nulls first, x.cache_ttl nulls first,
                            x.region nulls first, api._window_text(x.time_window) nulls first),
                   '[]'::jsonb) as rates
        from api._rates(v_day, array[ch.id]) as x
        where x.channel = ch.channel
    ) as r on true;

    if v_unpriced is not null then
        raise exception using
            errcode = 'PRNPD',
            message = format('model %s has no standard input and output prices on %s%s, so its '
                             'cost cannot be estimated (a model of kind embedding or rerank needs '
                             'an input price only)', v_unpriced,
                             coalesce('channel ' || p_channel, 'any channel'),
                             case when p_as_of is not null then ' on ' || v_day end),
            detail = jsonb_build_object('model_id', v_unpriced, 'parameter', 'model_ids')::text,
            hint = 'leave it out of model_ids'
                   || case when p_channel is not null then ', or choose another channel' else '' end
                   || '; GET /api/v1/models/' || v_unpriced
                   || '?include=pricing shows the prices it has';
    end if;

    return jsonb_build_object(
        'as_of', api._ts(v_served.as_of),
        'publish', v_served.id,
        'default_selection', p_ids is null,
        'prices_as_of', v_day,
        'models', coalesce(v_models, '[]'::jsonb));
end
$$;
