-- Webhooks (docs/webhooks.md): a key holder's subscriptions to the change
-- events, and every delivery owed to them, kept here so that a restart loses
-- none and a delivery that succeeded is never sent again.

-- One subscription: where to POST, which events (null filters match every
-- value), and the signing secret (`whsec_` and base64 of 32 random bytes; kept
-- as is, since every delivery is signed with it; shown to the holder once).
-- `seen_publish` is the newest publish whose events were matched against it:
-- a subscription is owed the events of later publishes only. `busy_until`:
-- an attempt of one of its deliveries is in flight until then (one at a time,
-- whichever server makes it).
create table pricing.webhooks (
    id bigint generated always as identity primary key,
    key_id bigint not null references pricing.api_keys (id) on delete cascade,
    url text not null check (url ~ '^https?://' and length(url) <= 2048),
    models text [] check (cardinality(models) between 1 and 50),
    provider text references pricing.providers (slug),
    event_types pricing.event_type [] check (cardinality(event_types) >= 1),
    min_significance smallint not null default 0 check (min_significance between 0 and 100),
    secret text not null check (secret ~ '^whsec_[A-Za-z0-9+/]+=*$'),
    seen_publish bigint not null default 0,
    busy_until timestamptz,
    created_at timestamptz not null default now()
);
create index webhooks_key_idx on pricing.webhooks (key_id, id);

-- One delivery: an event (reminder 0) or a reminder of an announced shutdown
-- (reminder 90, 30 or 7: the stage; days_left: the days left when it was
-- due) for one subscription, once (the unique key). The body is fixed when
-- the delivery is made, and sent as is on every attempt with the same
-- message id (Standard Webhooks' webhook-id). `pending` until an attempt gets
-- a 2xx (`delivered`) or the retries run out (`failed`); an attempt in flight
-- holds `leased_until`, after which another server may take it up.
create table pricing.webhook_deliveries (
    id bigint generated always as identity primary key,
    webhook_id bigint not null references pricing.webhooks (id) on delete cascade,
    event_id bigint not null,
    reminder smallint not null default 0 check (reminder >= 0),
    days_left integer,
    message_id text not null unique,
    payload jsonb not null,
    status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
    attempts integer not null default 0,
    next_attempt_at timestamptz not null default now(),
    leased_until timestamptz,
    last_attempt_at timestamptz,
    last_status integer,
    last_error text,
    created_at timestamptz not null default now(),
    finished_at timestamptz,
    unique (webhook_id, event_id, reminder)
);
create index webhook_deliveries_due_idx on pricing.webhook_deliveries (webhook_id, next_attempt_at)
where status = 'pending';
create index webhook_deliveries_recent_idx on pricing.webhook_deliveries (webhook_id, id desc);
create index webhook_deliveries_finished_idx on pricing.webhook_deliveries (finished_at)
where status <> 'pending';

-- Delivery attempts per key and clock hour, for the per-key hourly limit.
create table pricing.webhook_attempts (
    key_id bigint not null references pricing.api_keys (id) on delete cascade,
    hour timestamptz not null,
    attempts integer not null,
    primary key (key_id, hour)
);
