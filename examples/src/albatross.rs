//! What the Albatross examples share: the paper's figures as numbers, one run of the §V
//! experiment summarised, and the progress CSV.

use cosched_albatross::sim::{MachineKind, SimConfig, SimError, SimOutcome, simulate};
use cosched_albatross::workload::WorkloadModel;
use cosched_core::{Duration, SeedStreams};
use std::path::Path;

/// One of the paper's runs (§V, Figs. 1–4): capital, progress at 100,000 s where the text
/// states it, and the job run time's mean and sd.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PaperRun {
    /// The figure.
    pub figure: u8,
    /// Capital (0 = no Albatross).
    pub capital: f64,
    /// completed / dispatched at the end ("approximately 1/8th", "around 3/8ths"); NaN where
    /// the text gives none.
    pub progress: f64,
    /// Mean job run time, s.
    pub mean_s: f64,
    /// Its standard deviation, s.
    pub sd_s: f64,
}

/// Figs. 1–4 as the text of §V states them.
pub const PAPER: [PaperRun; 4] = [
    PaperRun {
        figure: 1,
        capital: 0.0,
        progress: 0.125,
        mean_s: 261.15,
        sd_s: 170.822,
    },
    PaperRun {
        figure: 2,
        capital: 0.25,
        progress: 0.375,
        mean_s: 72.21,
        sd_s: 47.63,
    },
    PaperRun {
        figure: 3,
        capital: 0.5,
        progress: f64::NAN,
        mean_s: 53.64,
        sd_s: 35.23,
    },
    PaperRun {
        figure: 4,
        capital: 0.75,
        progress: f64::NAN,
        mean_s: 34.20,
        sd_s: 20.96,
    },
];

/// One run of the §V experiment, summarised.
#[derive(Debug, Clone)]
pub struct Run {
    /// Jobs dispatched to the system (submitted) within the horizon.
    pub dispatched: usize,
    /// Jobs completed within the horizon.
    pub completed: usize,
    /// completed / dispatched at the horizon.
    pub progress_at_end: f64,
    /// completed / dispatched at 90,000 s (the last point at or before it).
    pub progress_at_90ks: f64,
    /// Mean job run time of the completed jobs, s (NaN if none).
    pub mean_s: f64,
    /// Its sample sd, s (NaN below two).
    pub sd_s: f64,
    /// Cloud bill, $.
    pub cost_usd: f64,
    /// Jobs completed on cloud nodes.
    pub completed_on_cloud: usize,
    /// When the first job completed, s (NaN if none).
    pub first_completion_s: f64,
    /// Mean time between successive completions, s (the saw-tooth's period; NaN below two).
    pub mean_gap_s: f64,
    /// Mean run time of the jobs completed on cloud nodes, s (NaN if none).
    pub mean_cloud_s: f64,
    /// Mean run time of the jobs completed on desktops, s (NaN if none).
    pub mean_desktop_s: f64,
    /// Hours cloud nodes were in the pool (joined to stopped).
    pub cloud_up_hours: f64,
    /// Cloud nodes whose t2 CPU credits would have run out (the simulator does not throttle).
    pub nodes_out_of_credit: usize,
    /// The full outcome.
    pub outcome: SimOutcome,
}

/// Runs `config` on the jobs `model` draws from seed `seed` (the same root seeds the owners).
///
/// # Errors
/// The simulator's, or the workload's parameter error.
pub fn run_capital(config: &SimConfig, model: &WorkloadModel, seed: u64) -> Result<Run, SimError> {
    let horizon = Duration(config.horizon.secs());
    let jobs = model.generate(horizon, SeedStreams::new(seed), 10_000_000)?;
    let mut config = config.clone();
    config.seed = seed;
    let outcome = simulate(&config, &jobs)?;
    let report = outcome.report();
    let stats = report.runtime;
    let mut ends: Vec<i64> = outcome
        .jobs
        .iter()
        .filter_map(|j| j.end.map(|t| t.secs()))
        .collect();
    ends.sort_unstable();
    let gaps: Vec<f64> = ends.windows(2).map(|w| (w[1] - w[0]) as f64).collect();
    Ok(Run {
        dispatched: report.jobs_dispatched,
        completed: report.jobs_completed,
        progress_at_end: report.progress_at_end,
        progress_at_90ks: outcome
            .progress
            .iter()
            .take_while(|p| p.time.secs() <= 90_000)
            .last()
            .and_then(|p| p.progress())
            .unwrap_or(f64::NAN),
        mean_s: stats.map_or(f64::NAN, |s| s.mean_s),
        sd_s: stats.and_then(|s| s.sd_s).unwrap_or(f64::NAN),
        cost_usd: report.cost_usd,
        completed_on_cloud: report.completed_on_cloud,
        first_completion_s: ends.first().map_or(f64::NAN, |&t| t as f64),
        mean_gap_s: cosched_core::stats::mean(&gaps).unwrap_or(f64::NAN),
        mean_cloud_s: mean_runtime(&outcome, true),
        mean_desktop_s: mean_runtime(&outcome, false),
        cloud_up_hours: report.cloud_up_hours,
        nodes_out_of_credit: report.nodes_out_of_credit,
        outcome,
    })
}

/// Mean run time of the jobs completed on cloud nodes (`cloud`) or on desktops.
fn mean_runtime(outcome: &SimOutcome, cloud: bool) -> f64 {
    let xs: Vec<f64> = outcome
        .jobs
        .iter()
        .filter(|j| matches!(j.completed_on, Some(MachineKind::Cloud(_))) == cloud)
        .filter_map(|j| j.runtime().map(|d| d.secs() as f64))
        .collect();
    cosched_core::stats::mean(&xs).unwrap_or(f64::NAN)
}

/// Writes `albatross_progress.csv` (`capital,time_s,dispatched,completed,progress`): a row at
/// every submission and completion of each run, so the saw-tooth is in the file.
///
/// # Errors
/// [`crate::Error::Csv`] naming the file.
pub fn write_progress_csv(path: &Path, runs: &[(f64, &SimOutcome)]) -> crate::Result<()> {
    let csv_err = |source| crate::Error::Csv {
        path: path.to_owned(),
        source,
    };
    let mut w = csv::Writer::from_path(path).map_err(csv_err)?;
    w.write_record(["capital", "time_s", "dispatched", "completed", "progress"])
        .map_err(csv_err)?;
    for (capital, out) in runs {
        for p in &out.progress {
            let progress = p.progress().map_or(String::new(), |x| format!("{x:.6}"));
            w.write_record([
                format!("{capital}"),
                p.time.secs().to_string(),
                p.dispatched.to_string(),
                p.completed.to_string(),
                progress,
            ])
            .map_err(csv_err)?;
        }
    }
    w.flush().map_err(|e| crate::Error::io(path, e))
}
