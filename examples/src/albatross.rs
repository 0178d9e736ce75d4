//! What the Albatross examples share beyond `cosched_albatross::scenario` (the policies, the
//! paper's figures, one §V run summarised): the progress CSV.

use cosched_albatross::report::SimOutcome;
use std::path::Path;

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
