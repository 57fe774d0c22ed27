//! The delivery worker of a server (`pricing serve`): every `poll`, it makes
//! the deliveries of publishes its subscriptions have not seen
//! (`api.webhook_fanout`), once a minute the reminders of announced shutdowns
//! (`api.webhook_remind`), and takes due deliveries (`api.webhook_claim`) into
//! free slots, at most one per subscription, so that a slow receiver holds
//! its own slot only, for at most one attempt's timeout. Each attempt is
//! recorded (`api.webhook_record`): a 2xx ends it, anything else schedules
//! the next attempt, or fails it once a day has passed. An attempt cut short
//! (a crash) is taken up again by any server once its lease lapses.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use tokio::task::JoinSet;

use super::destination::{self, GuardedResolver};
use super::signing::sign;
use super::{Settings, Webhooks};
use crate::telemetry::Throttle;

/// How often reminders are made.
const REMIND_EVERY: Duration = Duration::from_secs(60);
/// How often finished deliveries past [`KEEP_FINISHED`] are forgotten.
const SWEEP_EVERY: Duration = Duration::from_secs(3600);
/// How long finished deliveries stay listed.
const KEEP_FINISHED: Duration = Duration::from_secs(30 * 24 * 3600);
/// Slack on top of an attempt's timeout before its lease lapses and another
/// server may take the delivery up.
const LEASE_SLACK: Duration = Duration::from_secs(30);

/// One delivery taken for an attempt.
#[derive(Debug)]
struct Claimed {
    id: i64,
    url: String,
    secret: String,
    message_id: String,
    body: String,
    attempt: i32,
}

/// How an attempt ended: delivered, or the status and reason it was not.
#[derive(Debug)]
struct Outcome {
    delivered: bool,
    status: Option<i32>,
    error: Option<String>,
}

/// Runs until `stop` completes (or the sender is dropped), then lets the
/// attempts in flight finish and be recorded (each within its timeout), so
/// that a restart leaves none to wait for its lease.
pub async fn run(webhooks: Webhooks, mut stop: tokio::sync::oneshot::Receiver<()>) {
    let client = match http_client(&webhooks.settings) {
        Ok(client) => client,
        Err(err) => {
            tracing::error!(error = %format!("{err:#}"), "webhooks: no HTTP client; nothing will be delivered");
            return;
        }
    };
    let settings = Arc::clone(&webhooks.settings);
    let mut in_flight: JoinSet<()> = JoinSet::new();
    let mut last_remind: Option<Instant> = None;
    let mut last_sweep: Option<Instant> = None;
    static LOG: Throttle = Throttle::new(Duration::from_secs(60));
    tracing::info!(
        allow_private = settings.allow_private,
        slots = settings.slots,
        "webhooks: delivery worker started"
    );
    loop {
        while in_flight.try_join_next().is_some() {}
        if let Err(err) = round(
            &webhooks,
            &client,
            &mut in_flight,
            &mut last_remind,
            &mut last_sweep,
        )
        .await
            && let Some(suppressed) = LOG.admit()
        {
            tracing::warn!(error = %format!("{err:#}"), suppressed, "webhooks: a round failed; retrying (logged at most once a minute)");
        }
        webhooks.stats.rounds.fetch_add(1, Ordering::SeqCst);
        tokio::select! {
            () = tokio::time::sleep(settings.poll) => {}
            Some(_) = in_flight.join_next(), if !in_flight.is_empty() => {}
            _ = &mut stop => break,
        }
    }
    tracing::info!(
        in_flight = in_flight.len(),
        "webhooks: delivery worker stopping"
    );
    while in_flight.join_next().await.is_some() {}
}

/// The client deliveries are sent with: no proxy, no redirects, the guarded
/// resolver, the attempt's timeout.
fn http_client(settings: &Settings) -> anyhow::Result<reqwest::Client> {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .dns_resolver(Arc::new(GuardedResolver {
            allow_private: settings.allow_private,
        }))
        .timeout(settings.timeout)
        .connect_timeout(settings.timeout.min(Duration::from_secs(5)))
        .user_agent(concat!("pricing-webhooks/", env!("CARGO_PKG_VERSION")))
        .build()
        .context("building the webhook HTTP client")
}

async fn round(
    webhooks: &Webhooks,
    client: &reqwest::Client,
    in_flight: &mut JoinSet<()>,
    last_remind: &mut Option<Instant>,
    last_sweep: &mut Option<Instant>,
) -> anyhow::Result<()> {
    let settings = &webhooks.settings;
    let db = webhooks.pool.get().await.context("a database connection")?;
    let made: i32 = db
        .query_one("select api.webhook_fanout()", &[])
        .await?
        .get(0);
    if made > 0 {
        tracing::info!(deliveries = made, "webhooks: deliveries of a new publish");
    }
    if last_remind.is_none_or(|t| t.elapsed() >= REMIND_EVERY) {
        let today = time::OffsetDateTime::now_utc().date();
        let made: i32 = db
            .query_one(
                "select api.webhook_remind($1, $2::int4[])",
                &[&today, &settings.reminder_days],
            )
            .await?
            .get(0);
        if made > 0 {
            tracing::info!(reminders = made, "webhooks: shutdown reminders");
        }
        *last_remind = Some(Instant::now());
    }
    if last_sweep.is_none_or(|t| t.elapsed() >= SWEEP_EVERY) {
        db.execute(
            "select api.webhook_sweep($1::text::interval)",
            &[&interval(KEEP_FINISHED)],
        )
        .await?;
        *last_sweep = Some(Instant::now());
    }
    let free = settings.slots.saturating_sub(in_flight.len());
    if free == 0 {
        return Ok(());
    }
    let rows = db
        .query(
            "select delivery_id, url, secret, message_id, body, attempt
             from api.webhook_claim($1::int4, $2::text::interval, $3::int4)",
            &[
                &i32::try_from(free).unwrap_or(i32::MAX),
                &interval(settings.timeout + LEASE_SLACK),
                &settings.attempts_per_key_hour,
            ],
        )
        .await?;
    drop(db);
    for row in rows {
        let claimed = Claimed {
            id: row.get(0),
            url: row.get(1),
            secret: row.get(2),
            message_id: row.get(3),
            body: row.get(4),
            attempt: row.get(5),
        };
        let (webhooks, client) = (webhooks.clone(), client.clone());
        in_flight.spawn(async move {
            let outcome = attempt(&client, &webhooks.settings, &claimed).await;
            webhooks.stats.attempts.fetch_add(1, Ordering::SeqCst);
            if outcome.delivered {
                webhooks.stats.delivered.fetch_add(1, Ordering::SeqCst);
            }
            if let Err(err) = record(&webhooks, &claimed, &outcome).await {
                tracing::warn!(delivery = claimed.id, error = %format!("{err:#}"),
                    "webhooks: could not record an attempt; it is retried when its lease lapses");
            }
        });
    }
    Ok(())
}

/// A duration as PostgreSQL interval text.
fn interval(d: Duration) -> String {
    format!("{} milliseconds", d.as_millis())
}

/// Sends one delivery: checked destination, signed, one POST.
async fn attempt(client: &reqwest::Client, settings: &Settings, c: &Claimed) -> Outcome {
    let failed = |status: Option<i32>, error: String| Outcome {
        delivered: false,
        status,
        error: Some(error),
    };
    // The resolver checks names; a URL that is an address is checked here.
    if let Err(refused) = destination::parse(&c.url, settings.allow_private) {
        return failed(None, format!("destination refused: {refused}"));
    }
    let timestamp = time::OffsetDateTime::now_utc().unix_timestamp();
    let signature = match sign(&c.secret, &c.message_id, timestamp, c.body.as_bytes()) {
        Ok(signature) => signature,
        Err(err) => return failed(None, format!("signing: {err:#}")),
    };
    let sent = client
        .post(&c.url)
        .header("content-type", "application/json")
        .header("webhook-id", &c.message_id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(c.body.clone())
        .send()
        .await;
    match sent {
        Ok(res) if res.status().is_success() => Outcome {
            delivered: true,
            status: Some(i32::from(res.status().as_u16())),
            error: None,
        },
        Ok(res) => failed(
            Some(i32::from(res.status().as_u16())),
            format!("the receiver answered {}", res.status()),
        ),
        Err(err) => {
            // The chain names the cause (a refused address, a timeout, TLS).
            let mut reason = err.to_string();
            let mut source = std::error::Error::source(&err);
            while let Some(cause) = source {
                reason.push_str(": ");
                reason.push_str(&cause.to_string());
                source = cause.source();
            }
            failed(None, reason)
        }
    }
}

/// Records an attempt's outcome, with the wait before the next one.
async fn record(webhooks: &Webhooks, c: &Claimed, outcome: &Outcome) -> anyhow::Result<()> {
    let settings = &webhooks.settings;
    let retry_in = interval(settings.retry_after(c.attempt));
    let db = webhooks.pool.get().await.context("a database connection")?;
    let status: Option<String> = db
        .query_one(
            "select api.webhook_record($1, $2, $3::int4, $4, $5::text::interval, $6::text::interval)",
            &[
                &c.id,
                &outcome.delivered,
                &outcome.status,
                &outcome.error,
                &retry_in,
                &interval(settings.give_up_after),
            ],
        )
        .await?
        .get(0);
    if status.as_deref() == Some("failed") {
        tracing::warn!(
            delivery = c.id,
            attempts = c.attempt,
            error = outcome.error.as_deref().unwrap_or(""),
            "webhooks: a delivery failed for good"
        );
    }
    Ok(())
}
