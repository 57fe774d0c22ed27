-- A fifth way a launch date is known (docs/snapshot-format.md section 5.5):
-- 'reported', a secondary source's record of the day the maker released the
-- model (models.dev's release_date). It is no first-party fact, so it is not
-- 'announced' (the maker's own page says the day); it ranks after
-- 'first_listed' and before 'source_listed'. PostgreSQL 12 and later accept
-- this inside the transaction refinery runs each migration in; the value is
-- not used before that transaction commits.
alter type pricing.launch_basis add value 'reported' after 'first_listed';
