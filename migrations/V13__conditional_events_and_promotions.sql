-- Price events of conditional rates (pricing.conditional_prices): an event
-- of a context-length tier or a cache write names the condition its rate
-- applies under, and a cache write is a component of its own. The component
-- becomes text with the same check as pricing.conditional_prices (an enum
-- value added here could not be used in the transaction that adds it);
-- `condition` is null on the events of standard rates and on every event that
-- is not a price change.
alter table pricing.events
    alter column component type text using component::text,
    add constraint events_component_check
        check (component in ('input', 'output', 'cached_input', 'cache_write')),
    add column condition jsonb
        check (condition is null or event_type in ('price_change', 'price_change_scheduled'));

-- A promotional price: the provider states that the price is promotional
-- (introductory), with the last day it applies where the provider names one:
-- {"until": date or null, "url": the provider's page}. Null on a regular price.
alter table pricing.prices add column promotion jsonb;
alter table pricing.conditional_prices add column promotion jsonb;
