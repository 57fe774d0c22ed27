//! The `pricing` command: see `pricing --help`.

use clap::Parser;

// The server allocates and frees small buffers for every request; mimalloc's
// per-thread free lists make that cheaper than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
