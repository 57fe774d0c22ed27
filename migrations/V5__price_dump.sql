-- The CSV text of GET /dumps/prices.csv, built once per publish by
-- publish.refresh_dump() (sql/55_listing.sql) rather than on every request:
-- it covers every price in effect, close to a megabyte, and it changes only
-- when a publish lands. One row, for the newest publish. Stored out of line
-- but uncompressed: reading it is then a copy, not a decompression.
create table pricing.price_dump (
    publish bigint primary key references pricing.publishes (id) on delete cascade,
    csv text not null
);
alter table pricing.price_dump alter column csv set storage external;
