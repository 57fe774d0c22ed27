//! GET /api/v1/models on the real fixtures: the envelope, every filter and
//! sort, free-text search, exact pagination with cursors that visit every row
//! once, cursors bound to their filters and publish, past prices, caching.

use std::collections::BTreeSet;

use pricing::publish::snapshot::Snapshot;
use serde_json::Value;

use crate::helpers::{
    TestApp, TestDb, data_app, enc, fixture, fixture_app, fixture_bytes, publish_at,
    publish_fixture,
};

const SORTS: &[&str] = &[
    "price_input_asc",
    "price_output_asc",
    "price_blended_asc",
    "context_desc",
    "updated_desc",
];

fn ids(body: &Value) -> Vec<String> {
    body["data"]["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|m| m["id"].as_str().expect("id").to_owned())
        .collect()
}

/// Follows next_cursor from `first` to the end; returns every item in order.
async fn walk(app: &TestApp, first: &str) -> (Vec<Value>, usize) {
    let mut items = Vec::new();
    let mut pages = 0;
    let mut url = first.to_owned();
    loop {
        let body = app.call(&url).await.expect(200).json();
        pages += 1;
        let page = body["data"]["items"].as_array().expect("items").clone();
        let p = &body["pagination"];
        assert_eq!(p["count"], page.len(), "count is the page size: {p}");
        items.extend(page);
        match p["next_cursor"].as_str() {
            Some(cursor) => {
                assert_eq!(p["has_more"], true);
                url = format!("{first}&cursor={cursor}");
            }
            None => {
                assert_eq!(p["has_more"], false);
                assert_eq!(
                    p["total_count"],
                    items.len(),
                    "total_count is exact: {first}"
                );
                return (items, pages);
            }
        }
        assert!(pages < 50, "runaway pagination");
    }
}

/// A price as a sortable number, unpriced last.
fn price_key(item: &Value, field: &str) -> f64 {
    item["price"][field]
        .as_str()
        .map(|p| p.parse::<f64>().expect("decimal"))
        .unwrap_or(f64::INFINITY)
}

#[tokio::test]
async fn list_models_defaults_to_active_models_most_recently_updated_first() {
    let (db, app) = fixture_app().await;
    let reply = app.call("/api/v1/models").await.expect(200);
    let body = reply.json();
    assert_eq!(body["schema_version"], "1");
    assert_eq!(body["truncated"], false);
    let b = fixture("snapshot-b.json");
    let as_of = time::OffsetDateTime::parse(
        body["as_of"].as_str().expect("as_of"),
        &time::format_description::well_known::Rfc3339,
    )
    .expect("RFC 3339");
    assert_eq!(as_of, b.generated_at, "as_of is the last publish");
    assert_eq!(body["data"]["sort"], "updated_desc");
    let items = body["data"]["items"].as_array().expect("items");
    assert!(items.iter().all(|m| m["status"] == "active"));
    let active = db
        .scalar_i64("select count(*) from pricing.models where status = 'active'")
        .await;
    assert_eq!(body["pagination"]["total_count"], active);
    let updated: Vec<Option<&str>> = items.iter().map(|m| m["updated_at"].as_str()).collect();
    let mut sorted = updated.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(updated, sorted, "newest first, unknown last");
    // Prices are decimal strings, in USD per 1M tokens.
    let priced = items
        .iter()
        .find(|m| !m["price"].is_null())
        .expect("a priced model");
    assert!(priced["price"]["input"].is_string());
    assert_eq!(priced["price"]["unit"], "usd_per_1m_tokens");
}

#[tokio::test]
async fn every_sort_walks_all_models_exactly_once_in_its_order() {
    let (db, app) = fixture_app().await;
    let all: BTreeSet<String> = db
        .client()
        .await
        .query("select id from pricing.models", &[])
        .await
        .expect("ids")
        .iter()
        .map(|r| r.get(0))
        .collect();
    for sort in SORTS {
        let (items, pages) = walk(
            &app,
            &format!("/api/v1/models?status=all&sort={sort}&limit=5"),
        )
        .await;
        assert!(pages >= 3, "{sort}: several pages");
        let seen: Vec<String> = items
            .iter()
            .map(|m| m["id"].as_str().expect("id").to_owned())
            .collect();
        let unique: BTreeSet<String> = seen.iter().cloned().collect();
        assert_eq!(unique.len(), seen.len(), "{sort}: no model twice");
        assert_eq!(unique, all, "{sort}: every model once");
        for pair in items.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let ordered = match *sort {
                "price_input_asc" => price_key(a, "input") <= price_key(b, "input"),
                "price_output_asc" => price_key(a, "output") <= price_key(b, "output"),
                "price_blended_asc" => price_key(a, "blended") <= price_key(b, "blended"),
                "context_desc" => {
                    a["context_window"].as_i64().unwrap_or(0)
                        >= b["context_window"].as_i64().unwrap_or(0)
                }
                _ => a["updated_at"].as_str() >= b["updated_at"].as_str(),
            };
            assert!(ordered, "{sort}: {} before {}", a["id"], b["id"]);
        }
    }
}

#[tokio::test]
async fn list_models_filters_by_each_parameter() {
    let (db, app) = fixture_app().await;

    let body = app
        .call("/api/v1/models?provider=openai&status=all")
        .await
        .expect(200)
        .json();
    assert!(ids(&body).iter().all(|id| id.starts_with("openai:")));
    assert_eq!(
        body["pagination"]["total_count"],
        db.scalar_i64("select count(*) from pricing.models where provider = 'openai'")
            .await
    );

    for status in ["active", "deprecated", "retired"] {
        let body = app
            .call(&format!("/api/v1/models?status={status}"))
            .await
            .expect(200)
            .json();
        assert!(
            body["data"]["items"]
                .as_array()
                .expect("items")
                .iter()
                .all(|m| m["status"] == status)
        );
        assert_eq!(
            body["pagination"]["total_count"],
            db.scalar_i64(&format!(
                "select count(*) from pricing.models where status = '{status}'"
            ))
            .await,
            "{status}"
        );
    }

    for modality in ["text", "image", "audio", "video"] {
        let body = app
            .call(&format!("/api/v1/models?modality={modality}&status=all"))
            .await
            .expect(200)
            .json();
        assert_eq!(
            body["pagination"]["total_count"],
            db.scalar_i64(&format!(
                "select count(*) from pricing.models where '{modality}' = any (input_modalities)"
            ))
            .await,
            "{modality}"
        );
    }
    let body = app
        .call("/api/v1/models?min_context=2000000000")
        .await
        .expect(200)
        .json();
    assert_eq!(body["pagination"]["total_count"], 0);
    assert!(body["hint"].is_string(), "an empty result says what to try");

    let body = app
        .call("/api/v1/models?min_context=200000&status=all")
        .await
        .expect(200)
        .json();
    for m in body["data"]["items"].as_array().expect("items") {
        assert!(m["context_window"].as_i64().expect("context") >= 200_000);
    }
    assert_eq!(
        body["pagination"]["total_count"],
        db.scalar_i64("select count(*) from pricing.models where context_window >= 200000")
            .await
    );

    // channel: only models priced on it, with that channel's prices.
    let body = app
        .call("/api/v1/models?channel=aws_bedrock&status=all&limit=100")
        .await
        .expect(200)
        .json();
    assert_eq!(body["data"]["channel"], "aws_bedrock");
    for m in body["data"]["items"].as_array().expect("items") {
        assert_eq!(m["price"]["channel"], "aws_bedrock", "{m}");
    }
    let day =
        "(select (as_of at time zone 'UTC')::date from pricing.publishes order by id desc limit 1)";
    assert_eq!(
        body["pagination"]["total_count"],
        db.scalar_i64(&format!(
            "select count(distinct model_id) from pricing.prices where channel = 'aws_bedrock' \
             and tier = 'standard' and valid_from <= {day} and (valid_to is null or valid_to > {day})"
        ))
        .await
    );

    let body = app
        .call("/api/v1/models?max_input_price=1&status=all&limit=100")
        .await
        .expect(200)
        .json();
    assert!(!ids(&body).is_empty());
    for m in body["data"]["items"].as_array().expect("items") {
        let input: f64 = m["price"]["input"]
            .as_str()
            .expect("priced")
            .parse()
            .expect("decimal");
        assert!(input <= 1.0, "{m}");
    }
    let cheap = app
        .call("/api/v1/models?max_input_price=0.05&status=all")
        .await
        .expect(200)
        .json();
    assert_eq!(
        ids(&cheap),
        ["sao10k:l3-8b-lunaris"],
        "the cheapest real model is 0.05"
    );
}

#[tokio::test]
async fn free_text_query_searches_names_slugs_and_aliases_best_match_first() {
    let (_db, app) = fixture_app().await;
    let body = app
        .call("/api/v1/models?query=o3&status=all")
        .await
        .expect(200)
        .json();
    assert_eq!(ids(&body)[0], "openai:o3", "an exact slug ranks first");
    assert_eq!(body["data"]["sort"], "relevance");

    let body = app
        .call("/api/v1/models?query=sonnet&status=all")
        .await
        .expect(200)
        .json();
    let found = ids(&body);
    assert!(found.contains(&"anthropic:claude-sonnet-4-5".to_owned()));
    assert!(found.contains(&"anthropic:claude-sonnet-5-5".to_owned()));

    // by name, case-insensitive, several words
    let body = app
        .call(&format!("/api/v1/models?query={}", enc("Llama 70B")))
        .await
        .expect(200)
        .json();
    assert_eq!(ids(&body)[0], "meta:llama-3.1-70b-instruct");
    // by a provider API id only an alias carries
    let body = app
        .call(&format!(
            "/api/v1/models?query={}&status=all",
            enc("meta.llama3-1-70b")
        ))
        .await
        .expect(200)
        .json();
    assert_eq!(ids(&body), ["meta:llama-3.1-70b-instruct"]);
    // a query combines with a sort
    let body = app
        .call("/api/v1/models?query=sonnet&status=all&sort=price_input_asc")
        .await
        .expect(200)
        .json();
    assert_eq!(body["data"]["sort"], "price_input_asc");
    assert_eq!(
        ids(&body)[0],
        "anthropic:claude-sonnet-5-5",
        "2 USD before 3 USD"
    );

    let body = app
        .call("/api/v1/models?query=zzzzqqq")
        .await
        .expect(200)
        .json();
    assert_eq!(body["pagination"]["total_count"], 0);
    assert!(body["hint"].as_str().is_some_and(|h| h.contains("query")));
}

#[tokio::test]
async fn a_misspelt_query_finds_similar_models_and_a_query_pages_in_rank_order() {
    let (_db, app) = fixture_app().await;
    // no id, name or alias contains "sonnett": the trigram fallback finds the sonnets
    let body = app
        .call("/api/v1/models?query=sonnett&status=all")
        .await
        .expect(200)
        .json();
    let found = ids(&body);
    assert!(
        found.contains(&"anthropic:claude-sonnet-4-5".to_owned()),
        "{found:?}"
    );
    assert!(found.iter().all(|id| id.contains("sonnet")), "{found:?}");

    // page by page, a query visits its matches once, in the order of one page
    let all = app
        .call("/api/v1/models?query=sonnet&status=all&limit=100")
        .await
        .expect(200)
        .json();
    let (items, pages) = walk(&app, "/api/v1/models?query=sonnet&status=all&limit=1").await;
    let walked: Vec<String> = items
        .iter()
        .map(|m| m["id"].as_str().expect("id").to_owned())
        .collect();
    assert_eq!(walked, ids(&all));
    assert_eq!(pages, walked.len());
    assert!(pages > 1, "several matches: {walked:?}");
}

#[tokio::test]
async fn an_unknown_provider_is_not_found_with_suggestions() {
    let (_db, app) = fixture_app().await;
    let reply = app.call("/api/v1/models?provider=opnai").await.expect(404);
    let body = reply.json();
    assert_eq!(body["error"]["code"], "PROVIDER_NOT_FOUND");
    assert_eq!(body["error"]["did_you_mean"][0], "openai");
    assert!(
        body["error"]["next_step"]
            .as_str()
            .is_some_and(|s| !s.is_empty())
    );
}

#[tokio::test]
async fn values_out_of_range_are_400_and_unreadable_ones_are_422() {
    let (_db, app) = fixture_app().await;
    for (query, parameter) in [
        ("sort=cheapest", "sort"),
        ("status=gone", "status"),
        ("channel=bedrock", "channel"),
        ("modality=smell", "modality"),
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("min_context=0", "min_context"),
        ("max_input_price=-1", "max_input_price"),
        ("colour=red", "colour"),
        ("limit=5&limit=6", "limit"),
    ] {
        let reply = app
            .call(&format!("/api/v1/models?{query}"))
            .await
            .expect(400);
        let body = reply.json();
        assert_eq!(body["error"]["code"], "INVALID_ARGUMENT", "{query}");
        assert_eq!(body["error"]["parameter"], parameter, "{query}");
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains(parameter)),
            "{query}: {body}"
        );
    }
    for (query, loc) in [
        ("limit=ten", "limit"),
        ("min_context=1.5", "min_context"),
        ("max_input_price=cheap", "max_input_price"),
        ("as_of=yesterday", "as_of"),
    ] {
        let body = app
            .call(&format!("/api/v1/models?{query}"))
            .await
            .expect(422)
            .json();
        assert_eq!(
            body["detail"][0]["loc"],
            serde_json::json!(["query", loc]),
            "{query}"
        );
        assert_eq!(body["error"]["code"], "VALIDATION_FAILED");
    }
}

#[tokio::test]
async fn list_models_rejects_a_cursor_from_other_filters() {
    let (_db, app) = fixture_app().await;
    let body = app
        .call("/api/v1/models?status=all&sort=price_input_asc&limit=2")
        .await
        .expect(200)
        .json();
    let cursor = body["pagination"]["next_cursor"]
        .as_str()
        .expect("a next page")
        .to_owned();

    // The same filters continue; another limit is fine.
    app.call(&format!(
        "/api/v1/models?status=all&sort=price_input_asc&limit=4&cursor={cursor}"
    ))
    .await
    .expect(200);
    for other in [
        "status=all&sort=context_desc",
        "status=active&sort=price_input_asc",
        "status=all&sort=price_input_asc&provider=openai",
    ] {
        let reply = app
            .call(&format!("/api/v1/models?{other}&limit=2&cursor={cursor}"))
            .await
            .expect(400);
        assert_eq!(reply.error_code(), "INVALID_CURSOR", "{other}");
        assert!(
            reply.json()["error"]["next_step"]
                .as_str()
                .is_some_and(|s| s.contains("without cursor"))
        );
    }
    // altered, truncated and made-up cursors
    let mut altered = cursor.clone().into_bytes();
    let middle = altered.len() / 2;
    altered[middle] = if altered[middle] == b'A' { b'B' } else { b'A' };
    let altered = String::from_utf8(altered).expect("ascii");
    for bad in [
        altered.as_str(),
        &cursor[..cursor.len() - 3],
        "bm90LWEtY3Vyc29y",
        "%%%",
    ] {
        let reply = app
            .call(&format!(
                "/api/v1/models?status=all&sort=price_input_asc&limit=2&cursor={}",
                enc(bad)
            ))
            .await
            .expect(400);
        assert_eq!(reply.error_code(), "INVALID_CURSOR", "{bad}");
    }
    // a cursor of another listing
    let changes = app
        .call("/api/v1/changes?since=2026-01-01&until=2026-11-30&limit=1")
        .await
        .expect(200)
        .json();
    let foreign = changes["pagination"]["next_cursor"]
        .as_str()
        .expect("more events");
    let reply = app
        .call(&format!(
            "/api/v1/models?status=all&sort=price_input_asc&limit=2&cursor={foreign}"
        ))
        .await
        .expect(400);
    assert_eq!(reply.error_code(), "INVALID_CURSOR");
}

#[tokio::test]
async fn a_cursor_made_before_a_new_publish_fails_clearly() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let app = data_app(&db).await;
    let body = app.call("/api/v1/models?limit=2").await.expect(200).json();
    let cursor = body["pagination"]["next_cursor"]
        .as_str()
        .expect("more")
        .to_owned();
    publish_fixture(&db, "snapshot-b.json").await;
    let reply = app
        .call(&format!("/api/v1/models?limit=2&cursor={cursor}"))
        .await
        .expect(400);
    let body = reply.json();
    assert_eq!(body["error"]["code"], "INVALID_CURSOR");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("republished")),
        "{body}"
    );
}

#[tokio::test]
async fn as_of_shows_the_prices_in_effect_that_day() {
    let (_db, app) = fixture_app().await;
    // Bedrock cut Llama 3.1 70B input from 0.99 to 0.72 on 2026-09-28.
    let price = |body: Value| {
        body["data"]["items"]
            .as_array()
            .expect("items")
            .iter()
            .find(|m| m["id"] == "meta:llama-3.1-70b-instruct")
            .map(|m| m["price"]["input"].clone())
            .expect("listed")
    };
    let before = app
        .call("/api/v1/models?channel=aws_bedrock&as_of=2026-09-27&limit=100")
        .await
        .expect(200)
        .json();
    assert_eq!(before["data"]["prices_as_of"], "2026-09-27");
    assert_eq!(price(before), "0.99");
    let after = app
        .call("/api/v1/models?channel=aws_bedrock&as_of=2026-09-28&limit=100")
        .await
        .expect(200)
        .json();
    assert_eq!(price(after), "0.72");
    let now = app
        .call("/api/v1/models?channel=aws_bedrock&limit=100")
        .await
        .expect(200)
        .json();
    assert_eq!(now["data"]["prices_as_of"], "2026-11-12");
    assert_eq!(price(now), "0.72");
}

#[tokio::test]
async fn a_cacheable_get_answers_304_to_its_etag() {
    let (db, app) = fixture_app().await;
    let first = app
        .call("/api/v1/models?limit=3&sort=context_desc")
        .await
        .expect(200);
    let etag = first.header("etag").expect("ETag").to_owned();
    assert_eq!(first.header("cache-control"), Some("public, max-age=60"));

    let again = app
        .call_with(
            "/api/v1/models?limit=3&sort=context_desc",
            &[("if-none-match", &etag)],
        )
        .await
        .expect(304);
    assert!(again.text.is_empty());
    assert_eq!(again.header("etag"), Some(etag.as_str()));
    // The same request in another parameter order, with a key, is the same resource.
    let key = crate::keys::issue(&db, "free").await;
    let reordered = app
        .call_with(
            &format!("/api/v1/models?sort=context_desc&key={key}&limit=3"),
            &[("if-none-match", &format!("W/{etag}"))],
        )
        .await;
    assert_eq!(reordered.status, 304);
    // Another request is another resource.
    let other = app
        .call("/api/v1/models?limit=4&sort=context_desc")
        .await
        .expect(200);
    assert_ne!(other.header("etag"), Some(etag.as_str()));
    // A new publish changes every ETag.
    let snapshot = fixture("snapshot-b.json");
    let options = pricing::publish::Options {
        at: Some(snapshot.generated_at + time::Duration::hours(1)),
        ..Default::default()
    };
    let mut client = db.client().await;
    pricing::publish::publish(&mut client, &snapshot, options)
        .await
        .expect("republish");
    app.call_with(
        "/api/v1/models?limit=3&sort=context_desc",
        &[("if-none-match", &etag)],
    )
    .await
    .expect(200);
}

#[tokio::test]
async fn updated_at_is_the_day_of_the_newest_event_and_the_default_sort_lists_latest_changes_first()
{
    let (db, app) = fixture_app().await;
    let (items, pages) = walk(&app, "/api/v1/models?status=all&limit=5").await;
    assert!(pages >= 3, "several pages");
    let listed: Vec<(String, Option<String>)> = items
        .iter()
        .map(|m| {
            (
                m["id"].as_str().expect("id").to_owned(),
                m["updated_at"].as_str().map(str::to_owned),
            )
        })
        .collect();
    // The fixtures' newest event in effect on B's publish day (2026-11-12)
    // per model, newest first, then by id; Gemini 4 Argon has only a
    // scheduled change (2026-12-01) and no launch date: unknown, last.
    let day = |d: &str| Some(format!("{d}T00:00:00Z"));
    let expected: Vec<(String, Option<String>)> = [
        ("anthropic:claude-sonnet-4-5", day("2026-11-12")), // limit change seen on the publish day
        ("anthropic:claude-sonnet-5-5", day("2026-11-12")), // Azure cached input price
        ("openai:o3", day("2026-11-12")),                   // deprecation date moved
        ("perplexity:sonar", day("2026-11-12")),            // limit change seen on the publish day
        ("meta:llama-3.1-70b-instruct", day("2026-11-03")), // OpenRouter 0.4 -> 0.72
        ("openai:gpt-4-0613", day("2026-10-23")),           // retirement
        ("deepseek:deepseek-chat", day("2026-10-20")),      // OpenRouter price
        ("openai:gpt-4.1", day("2026-10-15")),              // deprecation
        ("openai:gpt-4o", day("2025-04-30")),               // OpenRouter price
        ("amazon:nova-pro", day("2024-12-03")),             // launch
        ("sao10k:l3-8b-lunaris", day("2024-11-28")),        // launch
        ("google:gemini-4-argon", None),
    ]
    .into_iter()
    .map(|(id, at)| (id.to_owned(), at))
    .collect();
    assert_eq!(listed, expected);

    // The same day as the newest published event in effect, for every model.
    let from_events: Vec<(String, Option<String>)> = db
        .client()
        .await
        .query(
            "select m.id, to_char(max(e.effective_date), 'YYYY-MM-DD\"T00:00:00Z\"')
             from pricing.models as m
             left join pricing.events as e on e.model_id = m.id and e.effective_date <= '2026-11-12'
             group by m.id
             order by max(e.effective_date) desc nulls last, m.id",
            &[],
        )
        .await
        .expect("newest events")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(listed, from_events);

    // The card says the same.
    let card = app
        .call("/api/v1/models/openai:gpt-4o")
        .await
        .expect(200)
        .json();
    assert_eq!(card["data"]["updated_at"], "2025-04-30T00:00:00Z");
}

#[tokio::test]
async fn a_walk_by_updated_at_crosses_the_models_of_unknown_date_each_once() {
    // Fixture B alone, with the launch dates of three models unknown: those
    // and Gemini 4 Argon have no dated event, so no updated_at, and the walk
    // takes cursors from rows whose sort key is "unknown".
    let mut b: Value = serde_json::from_slice(&fixture_bytes("snapshot-b.json")).expect("JSON");
    for model in b["models"].as_array_mut().expect("models") {
        if let Some("amazon:nova-pro" | "perplexity:sonar" | "sao10k:l3-8b-lunaris") =
            model["id"].as_str()
        {
            model["launch_date"] = Value::Null;
        }
    }
    let snapshot = Snapshot::from_bytes(&serde_json::to_vec(&b).expect("bytes")).expect("parses");
    let db = TestDb::new().await;
    publish_at(&db, &snapshot, snapshot.generated_at).await;
    let app = data_app(&db).await;

    let ids = |items: &[Value]| -> Vec<(String, Option<String>)> {
        items
            .iter()
            .map(|m| {
                (
                    m["id"].as_str().expect("id").to_owned(),
                    m["updated_at"].as_str().map(str::to_owned),
                )
            })
            .collect()
    };
    let (one_by_one, pages) = walk(&app, "/api/v1/models?status=all&limit=1").await;
    let (whole, _) = walk(&app, "/api/v1/models?status=all&limit=100").await;
    assert_eq!(pages, whole.len(), "one model a page");
    assert_eq!(ids(&one_by_one), ids(&whole));
    let unknown: Vec<String> = ids(&whole)
        .into_iter()
        .skip_while(|(_, at)| at.is_some())
        .map(|(id, at)| {
            assert!(at.is_none(), "unknown last: {id}");
            id
        })
        .collect();
    assert_eq!(
        unknown,
        vec![
            "amazon:nova-pro",
            "google:gemini-4-argon",
            "perplexity:sonar",
            "sao10k:l3-8b-lunaris"
        ]
    );
}
