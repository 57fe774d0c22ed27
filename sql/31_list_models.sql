-- api.list_models(...): GET /api/v1/models. Returns
--   {"as_of", "publish", "data": {"items": [...]}, "pagination": {...}, "hint"?}.
-- Parameters (null = not given): query (free text over ids, names and aliases),
-- provider, modality (input modality), status (default 'active'; 'all'), channel,
-- min_context, max_input_price, sort (default 'updated_desc', or match rank
-- when query is given), limit (1-100), cursor, as_of (a day: prices in effect
-- that day instead of the served publish's day).
-- Rows: pricing.model_listing, the reference row of each model (scope 'any')
-- or its row for `channel`, with the items of pricing.model_listing_item;
-- with as_of, the same rows computed for that day (api._listing_rows). The
-- free text searches pricing.model_search.
-- Ordering key: (k, model_id) ascending, k being the sort's key column
-- (migrations/V2__listing.sql) or -(match rank) in query order.
-- Errors: PRPNF unknown provider (did_you_mean), PRARG bad enum or range,
-- PRCUR cursor malformed, altered, for other filters or an older publish.
create function api.list_models(
    p_query text, p_provider text, p_modality text, p_status text, p_channel text,
    p_min_context integer, p_max_input_price numeric, p_sort text, p_limit integer,
    p_cursor text, p_as_of date
)
returns jsonb
language plpgsql stable security definer
set search_path = pricing, pg_temp
as $$
declare
    v_served record;
    v_query text := nullif(lower(btrim(p_query)), '');
    v_tokens text[];
    v_status text := coalesce(p_status, 'active');
    v_sort text;
    v_key_expr text;
    v_statuses pricing.lifecycle[];
    v_like text;
    v_matches text;
    v_join text;
    v_from text;
    v_item text;
    v_item_join text;
    v_patterns text[];
    v_where text;
    v_filters jsonb;
    v_key jsonb;
    v_total bigint;
    v_rows jsonb;
    v_count integer;
    v_last jsonb;
    v_next text;
begin
    select * into v_served from api._served();
    perform api._check_limit(p_limit);
    if v_status not in ('active', 'deprecated', 'retired', 'all') then
        perform api._raise_invalid('status', format('unknown status %L', v_status),
                                   'one of active, deprecated, retired, all');
    end if;
    if p_min_context is not null and p_min_context < 1 then
        perform api._raise_invalid('min_context', 'min_context must be an integer >= 1', 'an integer >= 1');
    end if;
    if p_max_input_price is not null and p_max_input_price < 0 then
        perform api._raise_invalid('max_input_price', 'max_input_price must be a decimal >= 0',
                                   'a decimal string >= 0, e.g. 2.5');
    end if;
    if p_sort is not null and p_sort not in
        ('price_input_asc', 'price_output_asc', 'price_blended_asc', 'context_desc', 'updated_desc') then
        perform api._raise_invalid('sort', format('unknown sort %L', p_sort),
            'one of price_input_asc, price_output_asc, price_blended_asc, context_desc, updated_desc');
    end if;
    if p_modality is not null and p_modality not in ('text', 'image', 'audio', 'video') then
        perform api._raise_invalid('modality', format('unknown modality %L', p_modality),
                                   'one of text, image, audio, video');
    end if;
    if p_channel is not null and not p_channel = any (enum_range(null::pricing.channel)::text[]) then
        perform api._raise_invalid('channel', format('unknown channel %L', p_channel),
            'one of ' || array_to_string(enum_range(null::pricing.channel)::text[], ', '));
    end if;
    if p_provider is not null then
        perform api._resolve_provider(p_provider);
    end if;

    v_statuses := case when v_status = 'all' then enum_range(null::pricing.lifecycle)
                       else array[v_status::pricing.lifecycle] end;
    v_sort := coalesce(p_sort, case when v_query is not null then 'relevance' else 'updated_desc' end);
    if v_query is not null then
        v_tokens := regexp_split_to_array(v_query, '\s+');
    end if;
    v_filters := jsonb_build_object(
        'query', v_query, 'provider', lower(p_provider), 'modality', p_modality, 'status', v_status,
        'channel', p_channel, 'min_context', p_min_context,
        'max_input_price', api._dec(p_max_input_price), 'sort', v_sort, 'as_of', p_as_of);
    v_key := api._cursor_read('models', v_served.id, v_filters, p_cursor);

    v_key_expr := case v_sort
        when 'price_input_asc' then 'l.k_input'
        when 'price_output_asc' then 'l.k_output'
        when 'price_blended_asc' then 'l.k_blended'
        when 'context_desc' then 'l.k_context'
        when 'updated_desc' then 'l.k_updated'
        else '-q.rank'
    end;
    -- $1 scope, $2 provider, $3 modality, $4 statuses, $5 min_context,
    -- $6 max_input_price, $7 query, $8 query words as LIKE patterns,
    -- $9 cursor key, $10 as_of day, $11 served as_of
    v_where := $w$
        l.scope = $1
        and ($2::text is null or l.provider = $2)
        and ($3::text is null or $3::pricing.modality = any (l.input_modalities))
        and l.status = any ($4::pricing.lifecycle[])
        and ($5::integer is null or l.context_window >= $5)
        and ($6::numeric is null or l.input_usd <= $6)
    $w$;
    v_patterns := array(
        select '%' || replace(replace(replace(t, '\', '\\'), '%', '\%'), '_', '\_') || '%'
        from unnest(v_tokens) as t);

    if v_query is null and p_as_of is null then
        -- The common case: a count over the narrow listing, and a page read in
        -- the order of the sort's index, with the prebuilt items of its rows.
        execute format('select count(*) from pricing.model_listing as l where %s', v_where)
        into v_total
        using coalesce(p_channel, 'any'), lower(p_provider), p_modality, v_statuses, p_min_context,
              p_max_input_price;
        execute format($q$
            select coalesce(jsonb_agg(jsonb_build_object('item', i.item, 'k', r.k::text, 'id', r.model_id)
                                      order by r.k, r.model_id), '[]'::jsonb)
            from (
                select l.model_id, %1$s as k
                from pricing.model_listing as l
                where %2$s
                  and ($9::jsonb is null or (%1$s, l.model_id) > (($9 ->> 0)::numeric, $9 ->> 1))
                order by 2, 1
                limit %3$s
            ) as r
            join pricing.model_listing_item as i on i.scope = $1 and i.model_id = r.model_id
        $q$, v_key_expr, v_where, p_limit + 1)
        into v_rows
        using coalesce(p_channel, 'any'), lower(p_provider), p_modality, v_statuses, p_min_context,
              p_max_input_price, v_query, v_patterns, v_key;
    else
        -- With free text or a past day: the matching rows once, counted and paged.
        -- A model matches when every word of the text occurs in its id, name or
        -- aliases; when no model matches so, those whose id, name or aliases are
        -- trigram-similar to the text (pg_trgm's <%, threshold 0.6: typos).
        -- Match rank: an exact id, slug, name or alias counts 2, a prefix of the
        -- slug or name 1, plus the trigram similarity of the text and the name.
        if v_query is not null then
            select string_agg(format('s.search like ($8::text[])[%s]', i), ' and ')
            into v_like
            from generate_subscripts(v_tokens, 1) as i;
            v_matches := format($m$
                sub as (
                    select s.model_id from pricing.model_search as s where %s
                ),
                fuzzy as (
                    select s.model_id from pricing.model_search as s
                    where not exists (select from sub) and $7 operator(public.<%%) s.search
                ),
                q as (
                    select x.model_id,
                           round((case when x.model_id = $7 or split_part(x.model_id, ':', 2) = $7
                                            or lower(md.name) = $7
                                            or exists (select from pricing.aliases as a
                                                       where a.model_id = x.model_id and lower(a.alias) = $7) then 2
                                       when starts_with(split_part(x.model_id, ':', 2), $7)
                                            or starts_with(lower(md.name), $7) then 1
                                       else 0 end
                                  + public.similarity($7, lower(md.name)))::numeric, 6) as rank
                    from (select model_id from sub union all select model_id from fuzzy) as x
                    join pricing.models as md on md.id = x.model_id
                ),
            $m$, v_like);
            v_join := ' join q on q.model_id = l.model_id';
        else
            v_matches := '';
            v_join := '';
        end if;
        if p_as_of is null then
            v_from := 'pricing.model_listing as l';
            v_item := 'i.item';
            v_item_join := 'join pricing.model_listing_item as i on i.scope = $1 and i.model_id = r.model_id';
        else
            v_from := 'api._listing_rows($10, $11) as l';
            v_item := 'r.item';
            v_item_join := '';
        end if;
        execute format($q$
            with %1$s
            f as (
                select l.model_id, %2$s as k%3$s
                from %4$s%5$s
                where %6$s
            )
            select (select count(*) from f),
                   (select coalesce(jsonb_agg(jsonb_build_object('item', %7$s, 'k', r.k::text, 'id', r.model_id)
                                              order by r.k, r.model_id), '[]'::jsonb)
                    from (
                        select f.* from f
                        where $9::jsonb is null or (f.k, f.model_id) > (($9 ->> 0)::numeric, $9 ->> 1)
                        order by f.k, f.model_id
                        limit %8$s
                    ) as r
                    %9$s)
        $q$, v_matches, v_key_expr, case when p_as_of is null then '' else ', l.item' end,
             v_from, v_join, v_where, v_item, p_limit + 1, v_item_join)
        into v_total, v_rows
        using coalesce(p_channel, 'any'), lower(p_provider), p_modality, v_statuses, p_min_context,
              p_max_input_price, v_query, v_patterns, v_key, p_as_of, v_served.as_of;
    end if;

    v_count := least(jsonb_array_length(v_rows), p_limit);
    if jsonb_array_length(v_rows) > p_limit then
        v_last := v_rows -> (p_limit - 1);
        v_next := api._cursor_make('models', v_served.id, v_filters,
                                   jsonb_build_array((v_last ->> 'k'), v_last ->> 'id'));
    end if;

    return jsonb_build_object(
        'as_of', api._ts(v_served.as_of),
        'publish', v_served.id,
        'data', jsonb_build_object(
            'items', coalesce((select jsonb_agg(e -> 'item' order by n)
                               from jsonb_array_elements(v_rows) with ordinality as x (e, n)
                               where n <= p_limit), '[]'::jsonb),
            'sort', v_sort,
            'prices_as_of', coalesce(p_as_of, v_served.day),
            'channel', p_channel),
        'pagination', jsonb_build_object(
            'count', v_count,
            'total_count', v_total,
            'has_more', v_next is not null,
            'next_cursor', v_next),
        'hint', case
            when v_total = 0 and v_query is not null
                then 'nothing matches; try a shorter query, or status=all to include deprecated and retired models'
            when v_total = 0
                then 'nothing matches these filters; drop a filter, or use status=all'
            when v_next is not null
                then 'more results: pass pagination.next_cursor as cursor, with the same parameters'
        end);
end
$$;
