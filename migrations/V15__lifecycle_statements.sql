-- A provider's statement of a model's lifecycle on one channel (docs/snapshot-format.md 5.2,
-- models[].lifecycle): the day the deprecation was announced, the shutdown day, a planned end
-- that is no shutdown (not_before), the replacement it names, and the notice with its page.
-- `decides` marks the one statement the model's status rests on. A publish replaces a staged
-- model's statements whole (sql/50_publish.sql); its deprecation and retirement events are
-- derived from them, each naming its channel.
create table pricing.lifecycle_statements (
    model_id text not null references pricing.models (id) on delete cascade,
    channel pricing.channel not null,
    announced date,
    shutdown date,
    not_before date,
    successor text references pricing.models (id) deferrable initially deferred,
    source text not null check (length(source) between 1 and 200),
    url text check (url ~ '^https?://'),
    decides boolean not null default false,
    published_in bigint not null references pricing.publishes (id),
    primary key (model_id, channel)
);
create unique index lifecycle_statements_decides_idx
    on pricing.lifecycle_statements (model_id) where decides;
