//! GET /metrics: the Prometheus text format, read by prometheus_client's own
//! parser (tests/clients/parse_metrics.py, venv target/py-clients), counters
//! that move by exactly what a burst of requests did, answered only to the
//! addresses of `--metrics-from` and never counted against a quota; and
//! GET /llms.txt.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::cache::cached_app;
use crate::helpers::{
    AppOptions, TestApp, TestDb, data_app_with, fixture_app, futures_join, publish_fixture,
    python_json, venv_python,
};

/// The samples of one scrape, parsed by prometheus_client: sample name and
/// its labels (sorted, `k=v` joined by `,`) to value.
#[derive(Debug)]
struct Scrape {
    families: Vec<Value>,
    samples: BTreeMap<(String, String), f64>,
}

impl Scrape {
    async fn of(app: &TestApp) -> Self {
        let reply = app.call("/metrics").await.expect(200);
        assert_eq!(
            reply.header("content-type"),
            Some("text/plain; version=0.0.4; charset=utf-8")
        );
        assert!(
            reply.header("x-ratelimit-limit").is_none(),
            "not counted against a quota"
        );
        let parsed = python_json(
            &venv_python("PRICING_CLIENTS_PYTHON", "py-clients"),
            "tests/clients/parse_metrics.py",
            &[],
            &reply.text,
        )
        .await;
        let families = parsed.as_array().expect("families").clone();
        let mut samples = BTreeMap::new();
        for family in &families {
            for sample in family["samples"].as_array().expect("samples") {
                let labels = sample["labels"].as_object().expect("labels");
                let mut labels: Vec<String> = labels
                    .iter()
                    .map(|(k, v)| format!("{k}={}", v.as_str().expect("label value")))
                    .collect();
                labels.sort();
                let key = (
                    sample["name"].as_str().expect("name").to_owned(),
                    labels.join(","),
                );
                samples.insert(key, sample["value"].as_f64().expect("value"));
            }
        }
        Self { families, samples }
    }

    /// A sample's value; 0 when absent (a counter not yet moved).
    fn get(&self, name: &str, labels: &str) -> f64 {
        self.samples
            .get(&(name.to_owned(), labels.to_owned()))
            .copied()
            .unwrap_or(0.0)
    }

    fn has(&self, name: &str, labels: &str) -> bool {
        self.samples
            .contains_key(&(name.to_owned(), labels.to_owned()))
    }

    fn family_type(&self, name: &str) -> Option<&str> {
        self.families
            .iter()
            .find(|f| f["name"] == name)
            .and_then(|f| f["type"].as_str())
    }
}

#[tokio::test]
async fn metrics_parse_with_prometheus_clients_parser_and_move_under_load() {
    let db = TestDb::new().await;
    publish_fixture(&db, "snapshot-a.json").await;
    let app = cached_app(&db).await;
    let before = Scrape::of(&app).await;
    for (family, kind) in [
        ("pricing_http_requests", "counter"),
        ("pricing_http_request_duration_seconds", "histogram"),
        ("pricing_response_cache_hits", "counter"),
        ("pricing_response_cache_misses", "counter"),
        ("pricing_response_cache_entries", "gauge"),
        ("pricing_response_cache_bytes", "gauge"),
        ("pricing_db_pool_connections_in_use", "gauge"),
        ("pricing_db_pool_waiting", "gauge"),
        ("pricing_admission_calls", "counter"),
        ("pricing_admission_failed_open", "counter"),
        ("pricing_publish_age_seconds", "gauge"),
    ] {
        assert_eq!(before.family_type(family), Some(kind), "{family}");
    }
    for pool in ["data", "control"] {
        assert!(before.has("pricing_db_pool_connections_max", &format!("pool={pool}")));
    }
    assert_eq!(before.get("pricing_database_up", ""), 1.0);
    assert!(before.get("pricing_publish_age_seconds", "") > 0.0);
    assert!(
        !before.has("pricing_last_sync_age_seconds", ""),
        "no sync has run: no age"
    );

    // The load: 200 list requests from 20 clients at once (the same answer,
    // so all but the first few are cache hits), 10 unknown paths and 10
    // cards of an id with raw slashes.
    const LIST: usize = 200;
    let list = "/api/v1/models?provider=openai&limit=5";
    let tasks = (0..20).map(|_| {
        let http = app.http.clone();
        let url = app.url(list);
        tokio::spawn(async move {
            for _ in 0..LIST / 20 {
                let status = http.get(&url).send().await.expect("request").status();
                assert_eq!(status, 200);
            }
        })
    });
    futures_join(tasks).await;
    for _ in 0..10 {
        // Not in the document: sent without the contract check.
        assert_eq!(app.get("/api/v1/nowhere").await.status(), 404);
        app.call("/api/v1/models/openrouter:openai/o3")
            .await
            .expect(200);
    }
    let after = Scrape::of(&app).await;

    let moved = |name: &str, labels: &str| after.get(name, labels) - before.get(name, labels);
    let models = "route=/api/v1/models";
    assert_eq!(
        moved(
            "pricing_http_requests_total",
            &format!("{models},status=200")
        ),
        LIST as f64
    );
    assert_eq!(
        moved("pricing_http_request_duration_seconds_count", models),
        LIST as f64
    );
    assert_eq!(
        after.get(
            "pricing_http_request_duration_seconds_bucket",
            &format!("le=+Inf,{models}")
        ),
        after.get("pricing_http_request_duration_seconds_count", models)
    );
    assert!(moved("pricing_http_request_duration_seconds_sum", models) > 0.0);
    assert_eq!(
        moved(
            "pricing_http_requests_total",
            "route=/api/v1/models/{model_id},status=200"
        ),
        10.0,
        "a card asked for with raw slashes is counted under the card's route"
    );
    assert_eq!(
        moved("pricing_http_requests_total", "route=unmatched,status=404"),
        10.0
    );
    assert_eq!(
        moved("pricing_http_requests_total", "route=/metrics,status=200"),
        1.0,
        "the first scrape, counted by the second"
    );
    let hits = moved("pricing_response_cache_hits_total", "");
    let misses = moved("pricing_response_cache_misses_total", "");
    assert!(hits >= (LIST - 20) as f64, "hits {hits}");
    assert!(
        hits + misses >= (LIST + 10) as f64,
        "hits {hits} misses {misses}"
    );
    assert!(after.get("pricing_response_cache_entries", "") >= 2.0);
    assert!(after.get("pricing_response_cache_bytes", "") > 0.0);
    // Counted: in calls of the accounting, or from the leases those granted.
    let called = moved("pricing_admission_called_requests_total", "");
    let leased = moved("pricing_admission_leased_units_total", "");
    assert!(called >= 1.0, "called {called}");
    assert!(
        called + leased >= (LIST + 20) as f64,
        "called {called} leased {leased}"
    );
    assert!(moved("pricing_admission_calls_total", "") >= 1.0);
    assert_eq!(moved("pricing_admission_failed_open_total", ""), 0.0);
}

#[tokio::test]
async fn metrics_answer_only_the_addresses_of_metrics_from() {
    let db = TestDb::new().await;
    let loopback_proxy = || vec!["127.0.0.1/32".parse().expect("cidr")];
    // Loopback by default: a client behind a trusted proxy on this machine is
    // not this machine.
    let app = data_app_with(
        &db,
        AppOptions {
            trusted_proxies: loopback_proxy(),
            ..AppOptions::default()
        },
    )
    .await;
    app.call("/metrics").await.expect(200);
    let refused = app
        .call_with("/metrics", &[("x-forwarded-for", "203.0.113.9")])
        .await
        .expect(403);
    assert_eq!(refused.error_code(), "FORBIDDEN");
    assert!(
        refused.json()["error"]["next_step"]
            .as_str()
            .is_some_and(|s| s.contains("--metrics-from"))
    );

    let app = data_app_with(
        &db,
        AppOptions {
            trusted_proxies: loopback_proxy(),
            metrics_from: Some(vec!["203.0.113.0/24".parse().expect("cidr")]),
            ..AppOptions::default()
        },
    )
    .await;
    app.call_with("/metrics", &[("x-forwarded-for", "203.0.113.9")])
        .await
        .expect(200);
    app.call("/metrics").await.expect(403);
}

#[tokio::test]
async fn llms_txt_describes_the_api_and_the_mcp_endpoint_uncounted() {
    let (_db, app) = fixture_app().await;
    let reply = app.call("/llms.txt").await.expect(200);
    assert_eq!(
        reply.header("content-type"),
        Some("text/markdown; charset=utf-8")
    );
    assert!(reply.header("x-ratelimit-limit").is_none());
    let text = &reply.text;
    assert!(text.starts_with("# Model Pricing Service\n\n> "), "{text}");
    for needle in [
        "(/api/v1/openapi.json)",
        "(/mcp)",
        "`/api/v1/compare` (MCP tool `pricing_compare`)",
        "POST `/api/v1/estimate`",
    ] {
        assert!(text.contains(needle), "{needle} in {text}");
    }
}
