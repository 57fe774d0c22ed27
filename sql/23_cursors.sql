-- Cursors: keyset pagination's opaque next_cursor, base64url JSON bound to
-- the endpoint, the publish and the filters it was made for, with a keyed MAC
-- so that it cannot be built or edited by hand, and the pagination object
-- of a page. Errors: PRCUR.
-- Names start with an underscore: the web role may not call these helpers
-- (sql/99_grants.sql); the public api functions run them with the owner's
-- rights.

-- api._b64url(bytes) / api._unb64url(text): base64url without padding.
create function api._b64url(p_bytes bytea)
returns text
language sql immutable
as $$
    select translate(encode(p_bytes, 'base64'), '+/=' || chr(10), '-_')
$$;

create function api._unb64url(p_text text)
returns bytea
language sql immutable strict
as $$
    select decode(
        rpad(translate(p_text, '-_', '+/'), (length(p_text) + 3) / 4 * 4, '='), 'base64')
$$;

-- api._filters_hash(filters): a short hash of the normalized filters a cursor
-- is bound to (jsonb text is canonical: sorted keys, no spaces variance).
create function api._filters_hash(p_filters jsonb)
returns text
language sql stable
as $$
    select left(encode(sha256(convert_to(p_filters::text, 'UTF8')), 'hex'), 16)
$$;

-- api._cursor_mac(payload): a keyed hash, sha256(k || sha256(k || payload)),
-- over the cursor's payload; 16 bytes, hex. PL/pgSQL, as is api._cursor_make:
-- a SQL function that reads a table is not inlined, and then plans its body
-- anew in every transaction, where PL/pgSQL keeps its plans for the session.
create function api._cursor_mac(p_payload jsonb)
returns text
language plpgsql stable
as $$
begin
    return (select left(encode(sha256(k.secret || sha256(k.secret || convert_to(p_payload::text, 'UTF8'))), 'hex'), 32)
            from pricing.cursor_key as k);
end
$$;

-- api._cursor_make(endpoint, publish, filters, key): the opaque next_cursor:
-- base64url of {"v":1,"e":endpoint,"p":publish,"f":hash(filters),"k":key,"m":mac}.
create function api._cursor_make(p_endpoint text, p_publish bigint, p_filters jsonb, p_key jsonb)
returns text
language plpgsql stable
as $$
declare
    v_payload jsonb := jsonb_build_object(
        'v', 1, 'e', p_endpoint, 'p', p_publish, 'f', api._filters_hash(p_filters), 'k', p_key);
begin
    return api._b64url(convert_to(
        (v_payload || jsonb_build_object('m', api._cursor_mac(v_payload)))::text, 'UTF8'));
end
$$;

-- api._cursor_read(endpoint, publish, filters, cursor): the key stored in a
-- cursor made by api._cursor_make for the same endpoint, publish and filters.
-- Raises PRCUR (INVALID_CURSOR) when the cursor is malformed, was edited, was
-- made for other filters or another endpoint, or for an earlier publish.
create function api._cursor_read(p_endpoint text, p_publish bigint, p_filters jsonb, p_cursor text)
returns jsonb
language plpgsql stable
as $$
declare
    v_doc jsonb;
    v_problem text;
    v_hint text := 'restart the listing: repeat the request without cursor';
begin
    if p_cursor is null then
        return null;
    end if;
    begin
        if length(p_cursor) > 2048 or p_cursor !~ '^[A-Za-z0-9_-]+$' then
            raise exception 'not base64url';
        end if;
        v_doc := convert_from(api._unb64url(p_cursor), 'UTF8')::jsonb;
        if jsonb_typeof(v_doc) <> 'object' then
            raise exception 'not an object';
        end if;
    exception when others then
        v_problem := 'cursor is malformed: pass the next_cursor of a previous page unchanged';
    end;
    if v_problem is not null then
        null;
    elsif v_doc ->> 'm' is null or v_doc ->> 'm' is distinct from api._cursor_mac(v_doc - 'm')
          or v_doc -> 'v' is distinct from '1'::jsonb or jsonb_typeof(v_doc -> 'k') is distinct from 'array' then
        v_problem := 'cursor is malformed or was altered: cursors are opaque, pass next_cursor unchanged';
    elsif v_doc ->> 'e' is distinct from p_endpoint then
        v_problem := format('cursor was made for another listing (%s), not for this one (%s)',
                            v_doc ->> 'e', p_endpoint);
    elsif v_doc ->> 'f' is distinct from api._filters_hash(p_filters) then
        v_problem := 'the filters or the sort changed since this cursor was made: a cursor only '
                     'continues the listing it came from, with the same parameters (limit aside)';
        v_hint := v_hint || ', or repeat the original parameters with this cursor';
    elsif (v_doc ->> 'p')::bigint is distinct from p_publish then
        v_problem := 'the data was republished since this cursor was made, so its pages would '
                     'no longer fit together';
        v_hint := v_hint || ' to page through the new publish';
    end if;
    if v_problem is not null then
        raise exception using
            errcode = 'PRCUR',
            message = v_problem,
            detail = jsonb_build_object('parameter', 'cursor')::text,
            hint = v_hint;
    end if;
    return v_doc -> 'k';
end
$$;

-- api._pagination(count, total, next_cursor): the `pagination` object of an
-- answer: count (of items), total_count, has_more (a next_cursor was made)
-- and next_cursor.
create function api._pagination(p_count bigint, p_total bigint, p_next text)
returns jsonb
language sql immutable
as $$
    select jsonb_build_object(
        'count', p_count,
        'total_count', p_total,
        'has_more', p_next is not null,
        'next_cursor', p_next)
$$;

-- api._page(endpoint, publish, as_of, filters, data, total, last, more,
-- empty_hint): the envelope of one page of a keyset walk. data holds the
-- page's `items`; when there are more, next_cursor continues after the key
-- `last`. The hint is empty_hint when nothing matches, else how to go on
-- when there is more.
create function api._page(
    p_endpoint text, p_publish bigint, p_as_of timestamptz, p_filters jsonb, p_data jsonb,
    p_total bigint, p_last jsonb, p_more boolean, p_empty_hint text
)
returns jsonb
language plpgsql stable
as $$
declare
    v_next text;
begin
    if p_more then
        v_next := api._cursor_make(p_endpoint, p_publish, p_filters, p_last);
    end if;
    return api._envelope(
        p_publish, p_as_of, p_data,
        api._pagination(jsonb_array_length(p_data -> 'items'), p_total, v_next),
        case
            when p_total = 0 then p_empty_hint
            when v_next is not null
                then 'more results: pass pagination.next_cursor as cursor, with the same parameters'
        end);
end
$$;
