-- Last: the web role may call every api function and read every api view.
grant execute on all functions in schema api to pricing_web;
grant select on all tables in schema api to pricing_web;
-- Functions are executable by PUBLIC by default; schema `keys` is the owner's
-- alone (the web role lacks USAGE on it as well).
revoke all on all functions in schema keys from public;
