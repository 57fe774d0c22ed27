-- The private data model. The server never touches these tables directly: it
-- calls the views and functions of schema `api` (see sql/), which run with the
-- owner's rights. Forward-only: change the model in a new V{n} file.

create extension if not exists pg_trgm;

-- The role the server's pooled connections run as (`-c role=pricing_web`): it
-- may use schema `api` and nothing else. Roles are cluster-wide, hence the guard.
do $$
begin
    if not exists (select from pg_roles where rolname = 'pricing_web') then
        create role pricing_web nologin;
    end if;
end
$$;
grant pricing_web to current_user;

create schema pricing;
revoke all on schema pricing from public;
revoke all on schema public from public;

create type pricing.channel as enum (
    'official', 'openrouter', 'aws_bedrock', 'azure', 'vertex',
    'together', 'fireworks', 'groq', 'novita'
);
create type pricing.component as enum ('input', 'output', 'cached_input');
create type pricing.service_tier as enum ('standard', 'batch', 'flex', 'priority');
create type pricing.lifecycle as enum ('active', 'deprecated', 'retired');
create type pricing.modality as enum ('text', 'image', 'audio', 'video');
create type pricing.event_type as enum (
    'price_change', 'price_change_scheduled', 'deprecation', 'retirement',
    'model_launch', 'limit_change'
);
create type pricing.alias_kind as enum ('provider_api_id', 'renamed_slug');

-- One row per run of the publishing pipeline; the newest is what is served.
create table pricing.publishes (
    id bigint generated always as identity primary key,
    as_of timestamptz not null unique,
    snapshot_sha256 text,
    summary jsonb not null default '{}'::jsonb,
    created_at timestamptz not null default now()
);

create table pricing.providers (
    slug text primary key check (slug ~ '^[a-z0-9][a-z0-9-]*$'),
    name text not null
);

create table pricing.models (
    id text primary key check (id ~ '^[a-z0-9][a-z0-9-]*:.+$'),
    provider text not null references pricing.providers (slug),
    slug text not null,
    name text not null,
    modality pricing.modality not null,
    input_modalities pricing.modality [] not null default '{text}',
    output_modalities pricing.modality [] not null default '{text}',
    status pricing.lifecycle not null,
    context_window integer check (context_window > 0),
    max_output_tokens integer check (max_output_tokens > 0),
    launch_date date,
    deprecation_date date,
    retirement_date date,
    successor text references pricing.models (id) deferrable initially deferred,
    -- the publish that last changed this model's card or prices
    updated_in bigint not null references pricing.publishes (id),
    updated_at timestamptz not null,
    unique (provider, slug)
);
create index models_provider_idx on pricing.models (provider);
create index models_status_idx on pricing.models (status);
create index models_updated_idx on pricing.models (updated_at desc, id desc);
create index models_context_idx on pricing.models (context_window desc nulls last, id);
create index models_search_trgm_idx on pricing.models
using gin ((id || ' ' || name) gin_trgm_ops);

-- Provider API ids and renamed slugs, each resolving to one canonical model.
create table pricing.aliases (
    alias text primary key,
    model_id text not null references pricing.models (id) on delete cascade,
    kind pricing.alias_kind not null,
    channel pricing.channel
);
create index aliases_model_idx on pricing.aliases (model_id);
create index aliases_trgm_idx on pricing.aliases using gin (alias gin_trgm_ops);

-- Price history: each row is one price in effect over [valid_from, valid_to).
-- valid_to null means open-ended; a valid_from in the future is a scheduled change.
create table pricing.prices (
    id bigint generated always as identity primary key,
    model_id text not null references pricing.models (id) on delete cascade,
    channel pricing.channel not null,
    component pricing.component not null,
    tier pricing.service_tier not null default 'standard',
    usd_per_1m numeric(20, 10) not null check (usd_per_1m >= 0),
    valid_from date not null,
    valid_to date check (valid_to > valid_from),
    last_verified_at timestamptz not null,
    source text not null,
    published_in bigint not null references pricing.publishes (id),
    unique (model_id, channel, component, tier, valid_from)
);
create index prices_current_idx on pricing.prices (channel, component, tier, usd_per_1m)
where valid_to is null;

create table pricing.events (
    id bigint generated always as identity primary key,
    publish_id bigint not null references pricing.publishes (id),
    event_type pricing.event_type not null,
    model_id text not null references pricing.models (id) on delete cascade,
    provider text not null references pricing.providers (slug),
    channel pricing.channel,
    component pricing.component,
    tier pricing.service_tier,
    old_value text,
    new_value text,
    significance smallint not null check (significance between 0 and 100),
    effective_date date not null,
    detail jsonb not null default '{}'::jsonb
);
create index events_feed_idx on pricing.events (effective_date desc, id desc);
create index events_model_idx on pricing.events (model_id, effective_date, id);
create index events_provider_idx on pricing.events (provider, effective_date desc, id desc);
create index events_type_idx on pricing.events (event_type, effective_date desc, id desc);

create table pricing.benchmarks (
    model_id text not null references pricing.models (id) on delete cascade,
    benchmark text not null check (benchmark ~ '^[a-z0-9_]+$'),
    score numeric(12, 4) not null,
    source text not null,
    measured_on date not null,
    primary key (model_id, benchmark)
);
create index benchmarks_benchmark_idx on pricing.benchmarks (benchmark, score desc);

-- Plans and keys (quota accounting lives with the keys feature).
create table pricing.plans (
    name text primary key,
    quota integer check (quota > 0),          -- null: unlimited
    window_seconds integer not null check (window_seconds > 0),
    burst_per_second integer check (burst_per_second > 0)  -- null: unlimited
);
insert into pricing.plans (name, quota, window_seconds, burst_per_second) values
('anonymous', 60, 3600, 2),
('free', 1000, 86400, 5),
('internal', null, 86400, null);

create table pricing.api_keys (
    id bigint generated always as identity primary key,
    lookup_prefix text not null unique,
    key_sha256 text not null,
    plan text not null references pricing.plans (name),
    label text,
    created_at timestamptz not null default now(),
    expires_at timestamptz,
    revoked_at timestamptz
);

-- Which build of sql/ schema `api` was last created from (see server/src/db.rs).
create table pricing.api_schema_state (
    singleton boolean primary key default true check (singleton),
    sha256 text not null,
    applied_at timestamptz not null default now()
);
