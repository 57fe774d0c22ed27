//! The `pricing` command: see `pricing --help`.

use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = pricing::cli::Cli::parse();
    pricing::telemetry::init(cli.log_format);
    match pricing::cli::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            tracing::error!("{err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
