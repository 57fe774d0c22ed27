-- Conditional rates: a price that applies only under a condition, beside the
-- standard rate of pricing.prices. Either a context-length tier (the whole
-- request is priced at this rate when its input tokens exceed
-- above_input_tokens) or a prompt-cache write (component cache_write, with the
-- cache's time to live where the provider states it). Rows are in effect over
-- [valid_from, valid_to) as in pricing.prices; valid_to null is open-ended.
create table pricing.conditional_prices (
    id bigint generated always as identity primary key,
    model_id text not null references pricing.models (id) on delete cascade,
    channel pricing.channel not null,
    -- text rather than pricing.component: cache_write is no standard component
    component text not null check (component in ('input', 'output', 'cached_input', 'cache_write')),
    tier pricing.service_tier not null default 'standard',
    above_input_tokens integer check (above_input_tokens > 0),
    cache_ttl text check (cache_ttl in ('5m', '1h')),
    usd_per_1m numeric(20, 10) not null check (usd_per_1m >= 0),
    valid_from date not null,
    valid_to date check (valid_to > valid_from),
    last_verified_at timestamptz not null,
    source text not null,
    published_in bigint not null references pricing.publishes (id),
    -- a standard rate (no threshold, no cache write) belongs in pricing.prices
    check (above_input_tokens is not null or component = 'cache_write'),
    check (cache_ttl is null or component = 'cache_write'),
    unique nulls not distinct (
        model_id, channel, component, tier, above_input_tokens, cache_ttl, valid_from
    )
);
