-- The listing behind GET /api/v1/models: one row per model and channel with the
-- standard-tier prices in effect on the day of the served publish, plus one
-- reference row per model (scope 'any'). Rebuilt whole at every publish by
-- publish.refresh_listing() (sql/55_listing.sql), so a list request is a filter,
-- an index-ordered keyset scan and a count over at most a few thousand rows.
--
-- Every sort of the spec is one ascending numeric key (k_*) followed by the
-- model id, so each keyset is the row comparison (k, model_id) > (cursor k, id):
--   price_input_asc   k_input   = input price, +Infinity when unpriced
--   price_output_asc  k_output  = output price, +Infinity when unpriced
--   price_blended_asc k_blended = (3 x input + output) / 4, +Infinity when unpriced
--   context_desc      k_context = -context_window (0 when unknown)
--   updated_desc      k_updated = -epoch seconds of models.updated_at

create table pricing.model_listing (
    -- 'any' for the reference row of a model, else the channel's name
    scope text not null,
    model_id text not null references pricing.models (id) on delete cascade,
    -- the channel the prices come from; null on a reference row without prices
    channel pricing.channel,
    provider text not null,
    status pricing.lifecycle not null,
    modality pricing.modality not null,
    input_modalities pricing.modality [] not null,
    context_window integer,
    updated_at timestamptz not null,
    input_usd numeric,
    output_usd numeric,
    cached_input_usd numeric,
    blended_usd numeric,
    -- lower-case id, name and aliases, for the free-text query
    search text not null,
    -- the list item as served (its prices and is_stale as of the publish)
    item jsonb not null,
    k_input numeric not null,
    k_output numeric not null,
    k_blended numeric not null,
    k_context numeric not null,
    k_updated numeric not null,
    primary key (scope, model_id),
    check (scope = 'any' or scope = channel::text)
);

create index model_listing_input_idx on pricing.model_listing (scope, k_input, model_id);
create index model_listing_output_idx on pricing.model_listing (scope, k_output, model_id);
create index model_listing_blended_idx on pricing.model_listing (scope, k_blended, model_id);
create index model_listing_context_idx on pricing.model_listing (scope, k_context, model_id);
create index model_listing_updated_idx on pricing.model_listing (scope, k_updated, model_id);
create index model_listing_provider_idx on pricing.model_listing (provider, scope);
create index model_listing_search_trgm_idx on pricing.model_listing using gin (search gin_trgm_ops);

-- Keys signing the opaque cursors (sql/30_common.sql): a cursor edited by hand
-- fails its check instead of silently starting somewhere else.
create table pricing.cursor_key (
    singleton boolean primary key default true check (singleton),
    secret bytea not null
);
insert into pricing.cursor_key (secret)
values (decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
