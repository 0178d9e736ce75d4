//! What the Albatross examples share beyond `cosched_albatross::scenario` (the policies, the
//! paper's figures, one §V run summarised): the progress CSV.

use crate::OutDir;
use cosched_albatross::report::SimOutcome;

/// Writes `albatross_progress.csv` (`capital,time_s,dispatched,completed,progress`) into
/// `out`, staged as every output of the directory is: a row at every submission and completion
/// of each run, so the saw-tooth is in the file.
///
/// # Errors
/// [`crate::Error::Csv`] or [`crate::Error::Io`] naming the file.
pub fn write_progress_csv(out: &mut OutDir, runs: &[(f64, &SimOutcome)]) -> crate::Result<()> {
    const NAME: &str = "albatross_progress.csv";
    let path = out.path().join(NAME);
    let csv_err = |source| crate::Error::Csv {
        path: path.clone(),
        source,
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["capital", "time_s", "dispatched", "completed", "progress"])
        .map_err(csv_err)?;
    for (capital, outcome) in runs {
        for p in &outcome.progress {
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
    let bytes = w
        .into_inner()
        .map_err(|e| crate::Error::io(&path, e.into_error()))?;
    out.write_file(NAME, &bytes).map(drop)
}
