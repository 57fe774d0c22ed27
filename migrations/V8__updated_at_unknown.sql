-- A model's updated_at is the day of its newest published event in effect
-- (publish.apply, sql/50_publish.sql). A model none of whose events has a
-- known date has no such day: unknown is null, never the publish time.
alter table pricing.models alter column updated_at drop not null;
