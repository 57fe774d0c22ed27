-- Last: the web role may call every api function and read every api view.
grant execute on all functions in schema api to pricing_web;
grant select on all tables in schema api to pricing_web;
