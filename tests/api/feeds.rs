//! The public change feeds (RSS 2.0, JSON Feed 1.1) carry the events of
//! /api/v1/changes; the CSV dump has every current price row.

use serde_json::Value;

use crate::helpers::fixture_app;

const FILTER: &str = "since=2025-12-02&until=2026-12-01";

fn change_ids(body: &Value) -> Vec<i64> {
    body["data"]["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|e| e["id"].as_i64().expect("id"))
        .collect()
}

#[tokio::test]
async fn the_rss_feed_carries_the_events_of_changes_newest_first() {
    let (_db, app) = fixture_app().await;
    let changes = app
        .call(&format!("/api/v1/changes?{FILTER}&limit=50"))
        .await
        .expect(200)
        .json();
    let reply = app
        .call(&format!("/feeds/changes.xml?{FILTER}"))
        .await
        .expect(200);
    assert!(
        reply
            .header("content-type")
            .is_some_and(|c| c.starts_with("application/rss+xml"))
    );
    let xml = &reply.text;
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    assert!(xml.contains("<rss version=\"2.0\""));
    let guids: Vec<i64> = xml
        .split("<guid isPermaLink=\"false\">pricing-event-")
        .skip(1)
        .map(|rest| {
            rest.split('<')
                .next()
                .expect("id")
                .parse()
                .expect("numeric id")
        })
        .collect();
    assert_eq!(guids, change_ids(&changes));
    assert_eq!(xml.matches("<item>").count(), guids.len());
    assert!(
        xml.contains("<pubDate>Tue, 01 Dec 2026 00:00:00 +0000</pubDate>"),
        "dated by effective date"
    );
    assert!(xml.contains("/api/v1/models/google%3Agemini-4-argon</link>"));

    // filters apply as on /changes
    let openai = app
        .call(&format!("/feeds/changes.xml?{FILTER}&provider=openai"))
        .await
        .expect(200);
    let changes = app
        .call(&format!(
            "/api/v1/changes?{FILTER}&provider=openai&limit=50"
        ))
        .await
        .expect(200)
        .json();
    assert_eq!(
        openai.text.matches("<item>").count(),
        change_ids(&changes).len()
    );
}

#[tokio::test]
async fn the_json_feed_carries_the_same_events() {
    let (_db, app) = fixture_app().await;
    let changes = app
        .call(&format!("/api/v1/changes?{FILTER}&limit=50"))
        .await
        .expect(200)
        .json();
    let reply = app
        .call(&format!("/feeds/changes.json?{FILTER}"))
        .await
        .expect(200);
    assert!(
        reply
            .header("content-type")
            .is_some_and(|c| c.starts_with("application/feed+json"))
    );
    let feed = reply.json();
    assert_eq!(feed["version"], "https://jsonfeed.org/version/1.1");
    let items = feed["items"].as_array().expect("items");
    let events: Vec<Value> = items.iter().map(|i| i["_pricing"].clone()).collect();
    assert_eq!(&events, changes["data"]["items"].as_array().expect("items"));
    assert!(items.iter().all(|i| {
        i["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("pricing-event-"))
    }));
}

#[tokio::test]
async fn feeds_default_to_the_newest_50_events_and_answer_304() {
    let (_db, app) = fixture_app().await;
    let reply = app
        .call("/feeds/changes.json?since=2025-12-02&until=2026-12-01&limit=3")
        .await
        .expect(200);
    assert_eq!(reply.json()["items"].as_array().expect("items").len(), 3);
    let etag = reply.header("etag").expect("etag").to_owned();
    app.call_with(
        "/feeds/changes.json?since=2025-12-02&until=2026-12-01&limit=3",
        &[("if-none-match", &etag)],
    )
    .await
    .expect(304);
    let body = app
        .call("/feeds/changes.xml?cursor=abc")
        .await
        .expect(400)
        .json();
    assert_eq!(body["error"]["parameter"], "cursor", "feeds do not page");
}

#[tokio::test]
async fn the_csv_dump_has_one_row_per_model_channel_component_tier_and_condition() {
    let (db, app) = fixture_app().await;
    let reply = app.call("/dumps/prices.csv").await.expect(200);
    assert!(
        reply
            .header("content-type")
            .is_some_and(|c| c.starts_with("text/csv"))
    );
    assert!(reply.header("etag").is_some());
    let lines: Vec<&str> = reply.text.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(
        lines[0],
        "model_id,provider,model_name,channel,component,tier,usd_per_1m_tokens,valid_from,valid_to,last_verified_at,is_stale,source,above_input_tokens,cache_ttl,region,time_window,promotional,promotion_until,kind"
    );
    let expected: i64 = db
        .client()
        .await
        .query_one(
            "select count(*)
             from (select valid_from, valid_to from pricing.prices
                   union all
                   select valid_from, valid_to from pricing.conditional_prices) p,
                 (select (as_of at time zone 'UTC')::date as day from pricing.publishes order by id desc limit 1) s
             where p.valid_from <= s.day and (p.valid_to is null or p.valid_to > s.day)",
            &[],
        )
        .await
        .expect("count")
        .get(0);
    assert_eq!(lines.len() as i64 - 1, expected);
    let canonical: Vec<String> = db
        .client()
        .await
        .query("select id from pricing.models", &[])
        .await
        .expect("ids")
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut keys = std::collections::BTreeSet::new();
    for line in &lines[1..] {
        let cells: Vec<&str> = line.split(',').collect();
        assert!(
            canonical.iter().any(|id| id == cells[0]),
            "canonical id: {line}"
        );
        // above_input_tokens, cache_ttl, region, time_window
        let condition = cells[cells.len() - 7..cells.len() - 3].join(",");
        assert_eq!(
            cells[cells.len() - 3..],
            ["false", "", "chat"],
            "no promotion in the fixture, and chat models only: {line}"
        );
        assert!(
            keys.insert((cells[0], cells[3], cells[4], cells[5], condition)),
            "one row per series: {line}"
        );
        assert!(
            cells[6].parse::<rust_decimal::Decimal>().is_ok(),
            "exact decimal: {line}"
        );
    }
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("openai:o3,openai,o3,official,input,standard,2,2025-06-10,"))
    );
}

#[tokio::test]
async fn the_dump_is_built_once_per_publish_and_follows_the_newest() {
    let db = crate::helpers::TestDb::new().await;
    crate::helpers::publish_fixture(&db, "snapshot-a.json").await;
    let app = crate::helpers::data_app(&db).await;
    let stored = || async {
        let row = db
            .client()
            .await
            .query_one(
                "select d.publish, d.csv, (select max(id) from pricing.publishes),
                        (select count(*) from pricing.price_dump)
                 from pricing.price_dump as d",
                &[],
            )
            .await
            .expect("stored dump");
        let (publish, csv, newest, rows): (i64, String, i64, i64) =
            (row.get(0), row.get(1), row.get(2), row.get(3));
        assert_eq!(
            (publish, rows),
            (newest, 1),
            "one dump, of the newest publish"
        );
        csv
    };
    let before = stored().await;
    assert_eq!(app.call("/dumps/prices.csv").await.expect(200).text, before);
    crate::helpers::publish_fixture(&db, "snapshot-b.json").await;
    let after = stored().await;
    assert_ne!(after, before);
    assert_eq!(app.call("/dumps/prices.csv").await.expect(200).text, after);
}

#[tokio::test]
async fn feeds_link_to_the_public_url_and_no_host_header_reaches_the_xml() {
    let db = crate::helpers::TestDb::new().await;
    crate::helpers::publish_fixture(&db, "snapshot-a.json").await;
    let app = crate::helpers::data_app_with(
        &db,
        crate::helpers::AppOptions {
            public_url: Some("https://prices.example.com/pricing/".into()),
            ..Default::default()
        },
    )
    .await;
    // Plain requests: this server's document names its own server, so the
    // test run's shared contract (which names `/`) does not apply to it.
    let get = async |path: &str, host: &str| {
        let res = app
            .http
            .get(app.url(path))
            .header("host", host)
            .send()
            .await
            .expect("request");
        assert_eq!(res.status(), 200, "{path}");
        res.text().await.expect("body")
    };
    let injected = "x</link><item><title>FAKE</title></item><link>y";
    let rss = get("/feeds/changes.xml?limit=1", injected).await;
    assert!(!rss.contains("FAKE"), "{rss}");
    assert_eq!(rss.matches("<item>").count(), 1);
    assert!(rss.contains("<link>https://prices.example.com/pricing/api/v1/changes</link>"));
    assert!(
        rss.contains("<atom:link href=\"https://prices.example.com/pricing/feeds/changes.xml\"")
    );
    let json: Value =
        serde_json::from_str(&get("/feeds/changes.json?limit=1", "evil.example").await)
            .expect("JSON feed");
    assert_eq!(
        json["feed_url"],
        "https://prices.example.com/pricing/feeds/changes.json"
    );
    assert!(
        json["items"][0]["url"]
            .as_str()
            .expect("item url")
            .starts_with("https://prices.example.com/pricing/api/v1/models/")
    );
    // The OpenAPI document names the same server.
    let doc: Value = serde_json::from_str(&get("/api/v1/openapi.json", "evil.example").await)
        .expect("OpenAPI document");
    assert_eq!(
        doc["servers"][0]["url"],
        "https://prices.example.com/pricing"
    );
}
