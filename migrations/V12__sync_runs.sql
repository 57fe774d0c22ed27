-- One row per `pricing sync` run (from the command line or a server's
-- --sync-every), written while the run holds the sync lock, so two rows never
-- overlap in time. `published` is the publish the run made, null when it made
-- none (nothing changed, refused, failed).
create table pricing.sync_runs (
    id bigint generated always as identity primary key,
    started_at timestamptz not null,
    finished_at timestamptz not null,
    ok boolean not null,
    message text not null,
    published bigint references pricing.publishes (id) on delete set null,
    runner text not null
);
create index sync_runs_finished_idx on pricing.sync_runs (finished_at desc);
