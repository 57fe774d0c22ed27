//! Query-string parsing shared by the handlers.
//!
//! Rules (docs/api.md): a parameter the endpoint does not know is rejected with
//! `INVALID_ARGUMENT` naming it and the allowed ones. A list parameter (read
//! with [`Query::ids`] or [`Query::list_of`]) takes comma-separated entries,
//! repeated keys (`ids=a&ids=b`, as generated clients send arrays) or both,
//! and its bounds count every entry given; any other parameter given twice is
//! `INVALID_ARGUMENT`. An empty value is checked like any other (`limit=` is
//! not a number, `sort=` not a sort), except for free text and cursors, where it means
//! "not given". A value that does not parse as its type (`limit=abc`,
//! `since=yesterday`) is a 422 with `detail`; a value that parses but lies
//! outside its enum or range is a 400 `INVALID_ARGUMENT`.
//!
//! Every value has a maximum length (docs/api.md, "Limits"), checked here
//! before anything else looks at it, so that no input costs more than a short
//! one; error messages quote at most a short prefix of a bad value
//! ([`excerpt`]).

use rust_decimal::Decimal;
use serde_json::{Value, json};
use time::Date;
use time::macros::format_description;

use crate::access::KEY_PARAM;
use crate::error::{ApiError, ErrorCode, ValidationItem, excerpt};

/// The longest model id or alias (path, `ids`, `model_ids`), in characters.
pub const MAX_ID_CHARS: usize = 200;
/// The longest provider slug or benchmark name, in characters.
pub const MAX_SLUG_CHARS: usize = 64;
/// The longest free-text `query`, in characters.
pub const MAX_QUERY_CHARS: usize = 200;
/// The longest value of any parameter (a cursor is the longest kind), in characters.
pub const MAX_VALUE_CHARS: usize = 2048;
/// The most entries a list parameter may have, all its keys together; every
/// list's own bound is lower, so this only keeps the work of reading one small.
pub const MAX_LIST_ENTRIES: usize = 100;
/// The most models a watch list (`model` of the changes and the feeds, a
/// webhook subscription's `model`) names.
pub const MAX_WATCHED: usize = 50;

/// Whether `v` has more than `max` characters; its cost does not grow past `max`.
pub fn too_long(v: &str, max: usize) -> bool {
    v.len() > max && v.chars().nth(max).is_some()
}

/// `INVALID_ARGUMENT` for a value longer than `max` characters.
pub fn check_length(parameter: &str, v: &str, max: usize, what: &str) -> Result<(), ApiError> {
    if too_long(v, max) {
        return Err(ApiError::invalid(
            parameter,
            format!(
                "`{parameter}` is longer than {max} characters: `{}`",
                excerpt(v)
            ),
            &format!("{what} of at most {max} characters"),
        ));
    }
    Ok(())
}

/// A model id or alias (path parameter, an entry of `ids` or `model_ids`):
/// text of at most [`MAX_ID_CHARS`] characters without NUL characters.
pub fn check_model_id(parameter: &str, id: &str) -> Result<(), ApiError> {
    check_length(
        parameter,
        id,
        MAX_ID_CHARS,
        "a model id such as openai:gpt-4o",
    )?;
    if id.contains('\0') {
        return Err(ApiError::invalid(
            parameter,
            format!("`{parameter}` contains a NUL character"),
            "a model id such as openai:gpt-4o",
        ));
    }
    Ok(())
}

/// The decoded query string of one request.
#[derive(Debug, Default)]
pub struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    /// Parses `raw` (the part after `?`), rejecting names outside `allowed`
    /// (plus `key`). A name may come more than once: a list reads every
    /// value, any other parameter refuses the repetition when it is read.
    pub fn parse(raw: Option<&str>, allowed: &[&str]) -> Result<Self, ApiError> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (name, value) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
            if name != KEY_PARAM && !allowed.contains(&name.as_ref()) {
                return Err(unknown_parameter(&name, allowed));
            }
            check_length(&name, &value, MAX_VALUE_CHARS, "a value")?;
            if value.contains('\0') {
                return Err(ApiError::invalid(
                    &name,
                    format!("query parameter `{name}` contains a NUL character"),
                    "text without NUL characters",
                ));
            }
            pairs.push((name.into_owned(), value.into_owned()));
        }
        Ok(Self { pairs })
    }

    /// The query of an MCP tool call, from its JSON arguments: each argument
    /// as the URL parameter of the same name would carry it (lists joined with
    /// commas), then parsed by the same rules as a URL's query.
    pub fn from_json(
        args: &serde_json::Map<String, serde_json::Value>,
        allowed: &[&str],
    ) -> Result<Self, ApiError> {
        use serde_json::Value;
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let mut raw = form_urlencoded::Serializer::new(String::new());
        for (name, value) in args {
            match value {
                Value::Null => {}
                Value::Array(items) => {
                    raw.append_pair(name, &items.iter().map(text).collect::<Vec<_>>().join(","));
                }
                other => {
                    raw.append_pair(name, &text(other));
                }
            }
        }
        Self::parse(Some(&raw.finish()), allowed)
    }

    /// Every value given for `name`, in the order given.
    fn values<'q>(&'q self, name: &str) -> impl Iterator<Item = &'q str> {
        self.pairs
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The one value of a parameter that is not a list, `None` when absent;
    /// `INVALID_ARGUMENT` when it is given more than once.
    fn raw(&self, name: &str) -> Result<Option<&str>, ApiError> {
        let mut values = self.values(name);
        let first = values.next();
        if values.next().is_some() {
            return Err(ApiError::invalid(
                name,
                format!("query parameter `{name}` is given more than once"),
                "a single value",
            ));
        }
        Ok(first)
    }

    /// Free text of at most `max` characters: `None` when absent or empty.
    pub fn text(&self, name: &str, max: usize) -> Result<Option<&str>, ApiError> {
        let text = self.raw(name)?.filter(|v| !v.is_empty());
        if let Some(v) = text {
            check_length(name, v, max, "text")?;
        }
        Ok(text)
    }

    /// A cursor: `None` when absent or empty.
    pub fn cursor(&self) -> Result<Option<&str>, ApiError> {
        // Query::parse bounds every value by the length of the longest cursor.
        Ok(self.raw("cursor")?.filter(|v| !v.is_empty()))
    }

    /// A name such as a provider slug: present means non-empty, and at most
    /// [`MAX_SLUG_CHARS`] characters.
    pub fn name(&self, name: &str, what: &str) -> Result<Option<&str>, ApiError> {
        match self.raw(name)? {
            Some("") => Err(ApiError::invalid(
                name,
                format!("`{name}` is empty"),
                &format!("{what}, or leave `{name}` out"),
            )),
            Some(v) => {
                check_length(name, v, MAX_SLUG_CHARS, what)?;
                Ok(Some(v))
            }
            None => Ok(None),
        }
    }

    /// The value, which must be one of `allowed`.
    pub fn one_of(&self, name: &str, allowed: &[&str]) -> Result<Option<&str>, ApiError> {
        match self.raw(name)? {
            None => Ok(None),
            Some(v) if allowed.contains(&v) => Ok(Some(v)),
            Some(v) => Err(ApiError::invalid(
                name,
                format!(
                    "`{name}` must be one of {}; got `{}`",
                    allowed.join(", "),
                    excerpt(v)
                ),
                &format!("one of {}", allowed.join(", ")),
            )),
        }
    }

    /// An integer in `min..=max`.
    pub fn int(&self, name: &str, min: i64, max: i64) -> Result<Option<i64>, ApiError> {
        let Some(v) = self.raw(name)? else {
            return Ok(None);
        };
        let digits = v.strip_prefix(['-', '+']).unwrap_or(v);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(unparsable(
                name,
                v,
                "int_parsing",
                "Input should be a valid integer, unable to parse string as an integer",
            ));
        }
        let allowed = if max == i64::from(i32::MAX) {
            format!("an integer >= {min}")
        } else {
            format!("an integer from {min} to {max}")
        };
        match v.parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(Some(n)),
            _ => Err(ApiError::invalid(
                name,
                format!("`{name}` must be {allowed}; got {}", excerpt(v)),
                &allowed,
            )),
        }
    }

    /// A calendar date, `YYYY-MM-DD`.
    pub fn date(&self, name: &str) -> Result<Option<Date>, ApiError> {
        let Some(v) = self.raw(name)? else {
            return Ok(None);
        };
        parse_date(v)
            .map(Some)
            .ok_or_else(|| unparsable(name, v, "date_parsing", DATE_MESSAGE))
    }

    /// A non-negative decimal string such as `2.5`.
    pub fn decimal(&self, name: &str) -> Result<Option<Decimal>, ApiError> {
        let Some(v) = self.raw(name)? else {
            return Ok(None);
        };
        let plain = v.strip_prefix('-').unwrap_or(v);
        let well_formed = {
            let (whole, frac) = plain.split_once('.').unwrap_or((plain, ""));
            !whole.is_empty()
                && whole.bytes().all(|b| b.is_ascii_digit())
                && frac.bytes().all(|b| b.is_ascii_digit())
                && (frac.len() <= 10)
                && (!plain.contains('.') || !frac.is_empty())
        };
        let parsed = if well_formed {
            v.parse::<Decimal>().ok()
        } else {
            None
        };
        match parsed {
            None => Err(unparsable(
                name,
                v,
                "decimal_parsing",
                "Input should be a decimal number like 2.5 (at most 10 decimal places)",
            )),
            Some(d) if d.is_sign_negative() && !d.is_zero() => Err(ApiError::invalid(
                name,
                format!("`{name}` must be a decimal >= 0; got {}", excerpt(v)),
                "a decimal string >= 0, e.g. 2.5",
            )),
            Some(d) => Ok(Some(d)),
        }
    }

    /// A comma-separated list of model ids (each checked by [`check_model_id`]).
    pub fn ids(&self, name: &str) -> Result<Option<Vec<String>>, ApiError> {
        let what = "a comma-separated list of model ids";
        let Some(items) = self.list(name, what)? else {
            return Ok(None);
        };
        for id in &items {
            check_model_id(name, id)?;
        }
        Ok(Some(items))
    }

    /// A comma-separated list whose items must all be in `allowed`.
    pub fn list_of(&self, name: &str, allowed: &[&str]) -> Result<Option<Vec<String>>, ApiError> {
        let what = format!("a comma-separated list of {}", allowed.join(", "));
        let Some(items) = self.list(name, &what)? else {
            return Ok(None);
        };
        if let Some(bad) = items.iter().find(|i| !allowed.contains(&i.as_str())) {
            return Err(ApiError::invalid(
                name,
                format!("`{name}` takes {what}; got `{}`", excerpt(bad)),
                &what,
            ));
        }
        Ok(Some(items))
    }

    /// A list: the comma-separated entries of every value given for `name`
    /// (`ids=a,b`, `ids=a&ids=b` and `ids=a,b&ids=c` alike), trimmed, in the
    /// order given; an empty or repeated entry is `INVALID_ARGUMENT`, and so is
    /// an empty value or more than [`MAX_LIST_ENTRIES`] entries.
    fn list(&self, name: &str, what: &str) -> Result<Option<Vec<String>>, ApiError> {
        let mut values = self.values(name).peekable();
        if values.peek().is_none() {
            return Ok(None);
        }
        let mut items: Vec<String> = Vec::new();
        for item in values.flat_map(|v| v.split(',')).map(str::trim) {
            if item.is_empty() {
                return Err(ApiError::invalid(
                    name,
                    format!("`{name}` has an empty entry"),
                    what,
                ));
            }
            if items.len() == MAX_LIST_ENTRIES {
                return Err(ApiError::invalid(
                    name,
                    format!("`{name}` has more than {MAX_LIST_ENTRIES} entries"),
                    what,
                ));
            }
            if items.iter().any(|i| i == item) {
                return Err(ApiError::invalid(
                    name,
                    format!("`{name}` lists `{}` more than once", excerpt(item)),
                    &format!("{what}, each once"),
                ));
            }
            items.push(item.to_owned());
        }
        Ok(Some(items))
    }

    /// A parameter that must be present.
    pub fn required(&self, name: &str) -> Result<(), ApiError> {
        if self.values(name).next().is_some() {
            return Ok(());
        }
        Err(ApiError::validation(vec![ValidationItem {
            loc: vec![json!("query"), json!(name)],
            msg: "Field required".into(),
            kind: "missing",
            input: None,
            ctx: None,
        }]))
    }

    /// The request's identity for ETags: see [`canonical_query`].
    pub fn normalized(&self) -> String {
        canonical(self.pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())))
    }
}

/// A query string in one form per meaning, for the keys of cached answers
/// and ETags: the API key left out, the values of a name given more than once
/// joined with commas in the order given (so `ids=a&ids=b` and `ids=a,b`, the
/// same request, have one form, and `ids=b&ids=a` another), names sorted.
pub fn canonical_query(raw: &str) -> String {
    // Borrowed where nothing is encoded: this runs on every cached GET, hits
    // included, and most queries decode to themselves.
    let pairs: Vec<_> = form_urlencoded::parse(raw.as_bytes()).collect();
    canonical(pairs.iter().map(|(n, v)| (n.as_ref(), v.as_ref())))
}

fn canonical<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let mut pairs: Vec<(&str, &str)> = pairs.filter(|(n, _)| *n != KEY_PARAM).collect();
    // Stable: the values of one name stay in the order given.
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    let mut out = form_urlencoded::Serializer::new(String::new());
    for same in pairs.chunk_by(|a, b| a.0 == b.0) {
        let values: Vec<&str> = same.iter().map(|(_, v)| *v).collect();
        out.append_pair(same[0].0, &values.join(","));
    }
    out.finish()
}

fn unknown_parameter(name: &str, allowed: &[&str]) -> ApiError {
    let mut known: Vec<&str> = allowed.to_vec();
    known.push(KEY_PARAM);
    let known = known.join(", ");
    let name = excerpt(name);
    ApiError::new(
        ErrorCode::InvalidArgument,
        format!("unknown query parameter `{name}`; this endpoint takes: {known}"),
        format!("remove `{name}` from the query (or fix its spelling)"),
    )
    .with("parameter", json!(name))
    .with("allowed", json!(known))
}

/// What a date that cannot be read is told, in a query or a body.
pub const DATE_MESSAGE: &str = "Input should be a valid date in the format YYYY-MM-DD";

/// A calendar date as the API writes one, `YYYY-MM-DD`.
pub fn parse_date(v: &str) -> Option<Date> {
    Date::parse(v, format_description!("[year]-[month]-[day]")).ok()
}

fn unparsable(name: &str, value: &str, kind: &'static str, msg: &str) -> ApiError {
    ApiError::validation(vec![ValidationItem {
        loc: vec![json!("query"), json!(name)],
        msg: msg.to_owned(),
        kind,
        input: Some(Value::String(excerpt(value))),
        ctx: None,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(raw: &str, allowed: &[&str]) -> Query {
        Query::parse(Some(raw), allowed).expect("parses")
    }

    #[test]
    fn unknown_and_repeated_parameters_are_rejected_by_name() {
        let err = Query::parse(Some("limit=5&colour=red"), &["limit"]).expect_err("unknown");
        assert_eq!(err.code(), ErrorCode::InvalidArgument);
        assert_eq!(err.body()["error"]["parameter"], "colour");
        assert!(
            err.body()["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("limit"))
        );
        let twice = q("limit=5&limit=6&sort=a&sort=a", &["limit", "sort"]);
        let err = twice.int("limit", 1, 100).expect_err("twice");
        assert_eq!(err.code(), ErrorCode::InvalidArgument);
        assert!(
            err.body()["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("more than once"))
        );
        assert_eq!(
            twice
                .one_of("sort", &["a"])
                .expect_err("same value twice")
                .code(),
            ErrorCode::InvalidArgument
        );
        assert!(Query::parse(Some("key=pr_live_x&limit=1"), &["limit"]).is_ok());
    }

    #[test]
    fn lists_take_repeated_keys_commas_or_both_and_bound_their_union() {
        let allowed = &["ids", "metrics"];
        let want = Some(vec!["a".to_owned(), "b".to_owned(), "c".to_owned()]);
        for raw in [
            "ids=a,b,c",
            "ids=a&ids=b&ids=c",
            "ids=a,b&ids=c",
            "ids=a&metrics=x&ids=b,c",
        ] {
            assert_eq!(q(raw, allowed).ids("ids").expect(raw), want, "{raw}");
        }
        for raw in [
            "ids=a&ids=a",
            "ids=a,b&ids=b",
            "ids=a&ids=",
            "ids=a&ids=b,,c",
        ] {
            assert_eq!(
                q(raw, allowed).ids("ids").expect_err(raw).code(),
                ErrorCode::InvalidArgument,
                "{raw}"
            );
        }
        let many: Vec<String> = (0..=MAX_LIST_ENTRIES)
            .map(|i| format!("ids=m{i}"))
            .collect();
        let err = q(&many.join("&"), allowed)
            .ids("ids")
            .expect_err("too many");
        assert!(err.body().to_string().contains("more than 100 entries"));
        let metrics = q("metrics=x&metrics=y", allowed)
            .list_of("metrics", &["x", "y"])
            .expect("both");
        assert_eq!(metrics, Some(vec!["x".to_owned(), "y".to_owned()]));
    }

    #[test]
    fn both_list_forms_have_one_canonical_query_and_order_still_counts() {
        let allowed = &["ids", "benchmark"];
        let commas = q("ids=a,b&benchmark=x", allowed).normalized();
        assert_eq!(commas, q("benchmark=x&ids=a&ids=b", allowed).normalized());
        assert_eq!(
            commas,
            canonical_query("ids=a&key=pr_live_x&benchmark=x&ids=b")
        );
        assert_eq!(commas, "benchmark=x&ids=a%2Cb");
        assert_ne!(commas, canonical_query("ids=b&ids=a&benchmark=x"));
    }

    #[test]
    fn integers_parse_or_give_422_and_ranges_give_400() {
        let query = q(
            "limit=abc&a=0&b=7&c=1.5&d=99999999999999999999",
            &["limit", "a", "b", "c", "d"],
        );
        assert_eq!(
            query.int("limit", 1, 100).expect_err("abc").code(),
            ErrorCode::ValidationFailed
        );
        assert_eq!(
            query.int("c", 1, 100).expect_err("1.5").code(),
            ErrorCode::ValidationFailed
        );
        assert_eq!(
            query.int("a", 1, 100).expect_err("0").code(),
            ErrorCode::InvalidArgument
        );
        assert_eq!(
            query.int("d", 1, 100).expect_err("huge").code(),
            ErrorCode::InvalidArgument
        );
        assert_eq!(query.int("b", 1, 100).expect("7"), Some(7));
        assert_eq!(query.int("missing", 1, 100).expect("absent"), None);
    }

    #[test]
    fn decimals_and_dates_are_strict() {
        let query = q(
            "p=2.50&n=-1&x=1e3&d=2025-02-30&e=2025-02-28&f=.5",
            &["p", "n", "x", "d", "e", "f"],
        );
        assert_eq!(
            query.decimal("p").expect("2.50"),
            Some(Decimal::new(250, 2))
        );
        assert_eq!(
            query.decimal("n").expect_err("negative").code(),
            ErrorCode::InvalidArgument
        );
        assert_eq!(
            query.decimal("x").expect_err("exponent").code(),
            ErrorCode::ValidationFailed
        );
        assert_eq!(
            query.decimal("f").expect_err("no leading digit").code(),
            ErrorCode::ValidationFailed
        );
        assert_eq!(
            query.date("d").expect_err("no such day").code(),
            ErrorCode::ValidationFailed
        );
        assert!(query.date("e").expect("a day").is_some());
    }

    #[test]
    fn empty_values_are_values_except_for_free_text() {
        let query = q(
            "provider=&ids=a,,b%2Cc&query=&limit=&sort=",
            &["provider", "ids", "query", "limit", "sort"],
        );
        assert_eq!(
            query
                .name("provider", "a provider slug")
                .expect_err("empty")
                .code(),
            ErrorCode::InvalidArgument
        );
        assert_eq!(query.text("query", MAX_QUERY_CHARS).expect("empty"), None);
        assert_eq!(
            query.int("limit", 1, 100).expect_err("empty").code(),
            ErrorCode::ValidationFailed
        );
        assert_eq!(
            query.one_of("sort", &["a"]).expect_err("empty").code(),
            ErrorCode::InvalidArgument
        );
        assert_eq!(
            query.ids("ids").expect_err("empty entry").code(),
            ErrorCode::InvalidArgument
        );
    }

    #[test]
    fn lists_refuse_empty_and_repeated_entries() {
        let query = q(
            "ids=a,%20b%20,c&metrics=price_input,price_input&include=",
            &["ids", "metrics", "include"],
        );
        assert_eq!(
            query.ids("ids").expect("ids"),
            Some(vec!["a".to_owned(), "b".to_owned(), "c".to_owned()])
        );
        let twice = query
            .list_of("metrics", &["price_input"])
            .expect_err("repeated");
        assert_eq!(twice.code(), ErrorCode::InvalidArgument);
        assert_eq!(
            query
                .list_of("include", &["pricing"])
                .expect_err("empty value")
                .code(),
            ErrorCode::InvalidArgument
        );
    }

    #[test]
    fn long_values_are_refused_and_quoted_by_a_short_prefix() {
        let long = "a".repeat(30_000);
        let err = Query::parse(Some(&format!("sort={long}")), &["sort"]).expect_err("too long");
        assert_eq!(err.code(), ErrorCode::InvalidArgument);
        let body = err.body().to_string();
        assert!(body.len() < 1_000, "{body}");
        assert!(body.contains("30000 characters"), "{body}");
        let err = Query::parse(Some(&format!("{long}=1")), &["sort"]).expect_err("unknown");
        assert!(err.body().to_string().len() < 1_000);
        let id = "b".repeat(MAX_ID_CHARS + 1);
        let query = q(&format!("ids=x,{id}&provider={id}"), &["ids", "provider"]);
        assert_eq!(
            query.ids("ids").expect_err("long id").code(),
            ErrorCode::InvalidArgument
        );
        assert_eq!(
            query.name("provider", "a slug").expect_err("long").code(),
            ErrorCode::InvalidArgument
        );
        assert!(check_model_id("model_id", &"c".repeat(MAX_ID_CHARS)).is_ok());
        assert_eq!(excerpt("short"), "short");
        assert!(too_long(&"é".repeat(MAX_SLUG_CHARS + 1), MAX_SLUG_CHARS));
        assert!(!too_long(&"é".repeat(MAX_SLUG_CHARS), MAX_SLUG_CHARS));
    }

    #[test]
    fn the_normalized_query_ignores_order_and_the_key() {
        let a = q("b=2&a=1&key=pr_live_x", &["a", "b"]).normalized();
        let b = q("a=1&b=2", &["a", "b"]).normalized();
        assert_eq!(a, b);
        assert_eq!(a, "a=1&b=2");
    }
}
