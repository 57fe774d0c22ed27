-- Errors. Every api function reports a failure the client caused with
--   raise exception using errcode = 'PR...', message = <what is wrong>,
--     detail = <JSON object merged into the error body, e.g. did_you_mean>,
--     hint = <next_step: what the client can do>;
-- server/src/error.rs maps the codes to the spec's codes and HTTP statuses:
--   PRARG INVALID_ARGUMENT (400)   PRCUR INVALID_CURSOR (400)
--   PRWIN WINDOW_TOO_LARGE (400)   PRMNF MODEL_NOT_FOUND (404)
--   PRPNF PROVIDER_NOT_FOUND (404) PRNPD NO_PRICE_DATA (404)
--   PRNOD SERVICE_UNAVAILABLE (503) PRWNF WEBHOOK_NOT_FOUND (404)
--   PRLIM LIMIT_EXCEEDED (409)
-- Raised by: PRARG here (_raise_invalid) and wherever a value is refused;
-- PRCUR sql/23_cursors.sql; PRWIN sql/26_events.sql; PRMNF and PRPNF
-- sql/24_resolution.sql; PRNPD the price endpoints; PRNOD sql/10_served.sql (_served);
-- PRWNF and PRLIM sql/39_webhooks.sql.
-- Names start with an underscore: the web role may not call these helpers
-- (sql/99_grants.sql); the public api functions run them with the owner's
-- rights.

-- api._raise_invalid(parameter, message, allowed): INVALID_ARGUMENT naming the
-- parameter and the values it allows.
create function api._raise_invalid(p_parameter text, p_message text, p_allowed text)
returns void
language plpgsql
as $$
begin
    raise exception using
        errcode = 'PRARG',
        message = format('%s; %s takes %s', p_message, p_parameter, p_allowed),
        detail = jsonb_build_object('parameter', p_parameter, 'allowed', p_allowed)::text,
        hint = format('pass %s as %s', p_parameter, p_allowed);
end
$$;
