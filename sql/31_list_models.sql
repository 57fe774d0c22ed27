-- api.list_models(...): GET /api/v1/models. Returns
--   {"as_of", "publish", "data": {"items": [...]}, "pagination": {...}, "hint"?}.
-- Parameters (null = not given): query (free text over ids, names and aliases),
-- provider, modality (input modality), status (default 'active'; 'all'), channel,
-- min_context, max_input_price, sort (default 'updated_desc', or match rank
-- when query is given), limit (1-100), cursor, as_of (a day: prices in effect
-- that day instead of the served publish's day), kinds (the models of any of
-- these kinds; a model of unknown kind matches none).
-- Rows: pricing.model_listing, the reference row of each model (scope 'any')
-- or its row for `channel`, with the items of pricing.model_listing_item;
-- with as_of, the same rows computed for that day (api._listing_rows). The
-- free text searches pricing.model_search.
-- Ordering key: (k, model_id) ascending, k being the sort's key column
-- (migrations/V2__listing.sql) or -(match rank) in query order.
-- Errors: PRPNF unknown provider (did_you_mean), PRCUR cursor malformed,
-- altered, for other filters or an older publish.
-- Enums and ranges of the arguments: as the server checked them (docs/api.md).
create function api.list_models(
    p_query text, p_provider text, p_modality text, p_status text, p_channel text,
    p_min_context integer, p_max_input_price numeric, p_sort text, p_limit integer,
    p_cursor text, p_as_of date, p_kinds text []
)
returns jsonb
language plpgsql stable
as $$
declare
    v_served record;
    v_query text := nullif(lower(btrim(p_query)), '');
    v_tokens text[];
    v_status text := coalesce(p_status, 'active');
    v_sort text;
    v_key_expr text;
    v_statuses pricing.lifecycle[];
    v_found text[];
    v_ranks numeric[];
    v_join text;
    v_from text;
    v_item text;
    v_patterns text[];
    v_where text;
    v_filters jsonb;
    v_key jsonb;
    v_page record;
begin
    select * into v_served from api._served();
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
        'max_input_price', api._dec(p_max_input_price), 'sort', v_sort, 'as_of', p_as_of,
        'kind', to_jsonb(p_kinds));
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
    -- $6 max_input_price, $7 cursor key, $8 as_of day, $9 served as_of,
    -- $10 ids of the models the query matches, $11 their match ranks, $12 kinds.
    -- Only the filters given: the query is planned at every call.
    v_where := concat_ws(' and ',
        'l.scope = $1',
        case when p_provider is not null then 'l.provider = $2' end,
        case when p_modality is not null then '$3::pricing.modality = any (l.input_modalities)' end,
        'l.status = any ($4)',
        case when p_min_context is not null then 'l.context_window >= $5' end,
        case when p_max_input_price is not null then 'l.input_usd <= $6' end,
        case when p_kinds is not null then 'l.kind = any ($12::pricing.model_kind[])' end);
    v_patterns := array(
        select '%' || replace(replace(replace(t, '\', '\\'), '%', '\%'), '_', '\_') || '%'
        from unnest(v_tokens) as t);

    -- A model matches free text when every word of the text occurs in its id,
    -- name or aliases; when no model matches so, those whose id, name or
    -- aliases are trigram-similar to the text (pg_trgm's <%, threshold 0.6:
    -- typos). Match rank: an exact id, slug, name or alias counts 2, a prefix
    -- of the slug or name 1, plus the trigram similarity of the text and the
    -- name.
    if v_query is not null then
        -- The matching models and their ranks first, in queries of their own
        -- whose plans PL/pgSQL keeps: the main query below is planned at every
        -- call, where planning the trigram operator (its estimate tries it on
        -- the column's statistics) and the rank costs more than running them.
        -- The first word's pattern lets the trigram index find candidates.
        v_found := array(select s.model_id from pricing.model_search as s
                         where s.search like v_patterns[1] and s.search like all (v_patterns));
        if cardinality(v_found) = 0 then
            v_found := array(select s.model_id from pricing.model_search as s
                             where v_query operator(public.<%) s.search);
        end if;
        select coalesce(array_agg(md.id), '{}'),
               coalesce(array_agg(round((case when md.id = v_query or split_part(md.id, ':', 2) = v_query
                                                   or lower(md.name) = v_query
                                                   or md.id in (select a.model_id from pricing.aliases as a
                                                                where lower(a.alias) = v_query)
                                                   then 2
                                              when starts_with(split_part(md.id, ':', 2), v_query)
                                                   or starts_with(lower(md.name), v_query) then 1
                                              else 0 end
                                         + public.similarity(v_query, lower(md.name)))::numeric, 6)), '{}')
        into v_found, v_ranks
        from unnest(v_found) as x (model_id)
        join pricing.models as md on md.id = x.model_id;
        v_join := ' join unnest($10::text[], $11::numeric[]) as q (model_id, rank)'
                  ' on q.model_id = l.model_id';
    else
        v_join := '';
    end if;
    -- The served item of a page row r: the prebuilt one, read row by row (a
    -- join costs more to plan), or with as_of the one computed for that day.
    if p_as_of is null then
        v_from := 'pricing.model_listing as l';
        v_item := '(select i.item from pricing.model_listing_item as i where i.scope = $1 and i.model_id = r.model_id)';
    else
        v_from := 'api._listing_rows($8, $9) as l';
        v_item := 'r.item';
    end if;

    -- The rows that pass the filters (f), counted and paged in one query: the
    -- items of the page, and the key of its last row when there is a next
    -- page. In the common case (no free text, no as_of) f is not materialized
    -- but inlined: the count is an index-only scan of the narrow listing and
    -- the page is read in the order of the sort's index.
    execute format($q$
        with f as %1$s (
            select l.model_id, %2$s as k%3$s
            from %4$s%5$s
            where %6$s
        )
        select (select count(*) from f) as total,
               coalesce(jsonb_agg(%7$s order by r.n) filter (where r.n <= %8$s), '[]'::jsonb) as items,
               jsonb_agg(jsonb_build_array(r.k::text, r.model_id)) filter (where r.n = %8$s) -> 0 as last,
               count(*) > %8$s as more
        from (
            select f.*, row_number() over (order by f.k, f.model_id) as n
            from f
            where %9$s
            order by f.k, f.model_id
            limit %8$s + 1
        ) as r
    $q$, case when v_query is null and p_as_of is null then 'not materialized' else '' end,
         v_key_expr, case when p_as_of is null then '' else ', l.item' end, v_from, v_join, v_where, v_item,
         p_limit,
         case when v_key is null then 'true' else '(f.k, f.model_id) > (($7 ->> 0)::numeric, $7 ->> 1)' end)
    into v_page
    using coalesce(p_channel, 'any'), lower(p_provider), p_modality, v_statuses, p_min_context,
          p_max_input_price, v_key, p_as_of, v_served.as_of, v_found, v_ranks, p_kinds;

    return api._page(
        'models', v_served.id, v_served.as_of, v_filters,
        jsonb_build_object(
            'items', v_page.items,
            'sort', v_sort,
            'prices_as_of', coalesce(p_as_of, v_served.day),
            'channel', p_channel),
        v_page.total, v_page.last, v_page.more,
        case
            when v_query is not null
                then 'nothing matches; try a shorter query, or status=all to include deprecated and retired models'
            else 'nothing matches these filters; drop a filter, or use status=all'
        end);
end
$$;
