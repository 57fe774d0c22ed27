-- Narrow listing rows (see V2__listing.sql): counting and scanning
-- pricing.model_listing read few pages when its rows carry only the filter
-- and sort columns. The served list items move to pricing.model_listing_item,
-- read only for the rows of one page, and the free-text search moves to one
-- row per model in pricing.model_search. publish.refresh_listing()
-- (sql/55_listing.sql) fills all three; it runs whenever schema api is
-- re-created, so the listing is rebuilt right after this migration.

drop index pricing.model_listing_search_trgm_idx;
drop index pricing.model_listing_provider_idx;
delete from pricing.model_listing;
alter table pricing.model_listing
drop column search,
drop column item,
drop column updated_at,
drop column cached_input_usd;
create index model_listing_filter_idx on pricing.model_listing (scope, status, provider);

-- The list item of each listing row as served (its prices and is_stale as of
-- the publish).
create table pricing.model_listing_item (
    scope text not null,
    model_id text not null,
    item jsonb not null,
    primary key (scope, model_id),
    foreign key (scope, model_id) references pricing.model_listing (scope, model_id) on delete cascade
);

-- What the free-text query searches: lower-case id, name and aliases per model.
create table pricing.model_search (
    model_id text primary key references pricing.models (id) on delete cascade,
    search text not null
);
create index model_search_trgm_idx on pricing.model_search using gin (search gin_trgm_ops);

-- Case-insensitive id and alias lookups (model resolution, exact-match rank).
create index models_lower_id_idx on pricing.models (lower(id));
create index aliases_lower_alias_idx on pricing.aliases (lower(alias));
