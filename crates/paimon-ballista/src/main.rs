//! `paimon-ballista scheduler|executor`: a Ballista cluster that runs queries over Paimon
//! tables (see the library docs).

use std::net::SocketAddr;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use paimon_ballista::{run_executor, run_scheduler, ExecutorOptions, SchedulerOptions};

#[derive(Parser)]
#[command(
    name = "paimon-ballista",
    about = "Ballista scheduler and executor for Paimon tables"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Runs a scheduler.
    Scheduler {
        /// gRPC address, e.g. 127.0.0.1:50050.
        #[arg(long)]
        bind: SocketAddr,
        /// Seconds without a heartbeat after which an executor counts as dead.
        #[arg(long, default_value_t = 180)]
        executor_timeout_secs: u64,
        /// Executors registered before `GET /readyz` answers 200.
        #[arg(long, default_value_t = 1)]
        min_ready_executors: usize,
        /// The warehouse whose tables clients query, spelled as they spell it (the same
        /// absolute path or URL); a plan naming a table outside it is refused.
        #[arg(long)]
        warehouse: String,
    },
    /// Runs an executor.
    Executor {
        /// The scheduler's gRPC address.
        #[arg(long)]
        scheduler: SocketAddr,
        /// Flight (shuffle) address, e.g. 127.0.0.1:50051.
        #[arg(long)]
        bind: SocketAddr,
        /// gRPC port on the same host (default: the Flight port + 1).
        #[arg(long)]
        grpc_port: Option<u16>,
        /// Tasks run at once (default: the number of cores).
        #[arg(long)]
        concurrent_tasks: Option<usize>,
        /// Seconds between heartbeats to the scheduler.
        #[arg(long, default_value_t = 60)]
        heartbeat_secs: u64,
        /// Directory for shuffle files (default: a temporary directory).
        #[arg(long)]
        work_dir: Option<String>,
        /// The warehouse whose tables the executor reads, spelled as clients spell it (the
        /// same absolute path or URL); it runs no other file scan and no file sink.
        #[arg(long)]
        warehouse: String,
    },
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    paimon_ballista::logger::init();
    // Plans are walked recursively on these threads; Ballista's own binaries give them 32 MiB.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(32 * 1024 * 1024)
        .build()?;
    runtime.block_on(async {
        match cli.command {
            Command::Scheduler {
                bind,
                executor_timeout_secs,
                min_ready_executors,
                warehouse,
            } => run_scheduler(SchedulerOptions {
                bind,
                executor_timeout_secs,
                min_ready_executors,
                warehouse,
            })
            .await
            .context("scheduler"),
            Command::Executor {
                scheduler,
                bind,
                grpc_port,
                concurrent_tasks,
                heartbeat_secs,
                work_dir,
                warehouse,
            } => {
                let grpc_port = match grpc_port {
                    Some(p) => p,
                    None => bind
                        .port()
                        .checked_add(1)
                        .context("no port after --bind's")?,
                };
                let concurrent_tasks = match concurrent_tasks {
                    Some(n) => n,
                    None => std::thread::available_parallelism()?.get(),
                };
                run_executor(ExecutorOptions {
                    scheduler,
                    bind,
                    grpc_port,
                    concurrent_tasks,
                    heartbeat_secs,
                    work_dir,
                    warehouse,
                })
                .await
                .context("executor")
            }
        }
    })
}
