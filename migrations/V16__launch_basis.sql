-- How a model's launch date is known (docs/snapshot-format.md section 5.5):
-- launch_basis says what kind of fact it is, from the strongest: the maker's
-- announcement, model page or release notes ('announced'), the first day the
-- maker's own API or SDK lists it ('maker_api'), the first day a channel's own
-- listing shows it ('first_listed'), the first dated release of a secondary
-- source listing it ('source_listed'). launch_source names the page, release
-- or repository commit; launch_precision whether the date is a day or only
-- its month (the date is then the month's first day). A launch published
-- before this migration keeps its date with an unknown (null) basis until the
-- next publish states it; a basis or source never stands without a date.
create type pricing.launch_basis as enum ('announced', 'maker_api', 'first_listed', 'source_listed');
create type pricing.date_precision as enum ('day', 'month');

alter table pricing.models
    add column launch_basis pricing.launch_basis,
    add column launch_source text check (char_length(launch_source) between 1 and 300),
    add column launch_precision pricing.date_precision,
    add constraint models_launch_basis_dated check (
        (launch_basis is null and launch_source is null and launch_precision is null)
        or (launch_date is not null and launch_basis is not null and launch_source is not null
            and launch_precision is not null)
    ),
    add constraint models_launch_month_first check (
        launch_precision is distinct from 'month' or extract(day from launch_date) = 1
    );
