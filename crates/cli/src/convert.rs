//! `cosched convert`: a workload between SWF and Batsim's JSON format.
//!
//! The input's format is read from its content (as `simulate` does); the output's from
//! `--to` or else the output's extension (`.json` is Batsim, anything else SWF). What both
//! formats hold is kept: id, submit time, size, run time, estimate (SWF's requested time,
//! Batsim's walltime); SWF's other fields (wait, status, user, …) have no place in a Batsim
//! workload, and a Batsim job's profile becomes a run time. Times are whole seconds: integers
//! are kept exactly both ways (JSON integers, not doubles), and a fractional Batsim walltime
//! or delay rounds up (`cosched_workload::batsim`), so a job simulates the same from the JSON
//! and from its SWF. Invalid records are skipped and counted on standard error, by reason.

use crate::input::{self, InputError};
use crate::output::{self, Clash, OutputError, Outputs, Plan};
use clap::{Args, ValueEnum};
use cosched_workload::batsim::{self, BatsimError};
use cosched_workload::swf::{HeaderLineError, SwfHeader, SwfRecord, SwfWriter};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// `cosched convert --help`'s closing part.
pub const AFTER_HELP: &str = "\
Examples:
  cosched convert trace.swf.gz workload.json            # SWF to Batsim (by the extension)
  cosched convert workload.json trace.swf --to swf
  zcat trace.swf.gz | cosched convert - workload.json --capacity 128";

/// Arguments of `cosched convert`.
#[derive(Args)]
pub struct ConvertArgs {
    /// The workload to read (SWF, plain or gzip, or Batsim JSON); `-` reads standard input.
    input: PathBuf,
    /// The file to write.
    output: PathBuf,
    /// Output format [default: batsim for a `.json` output, else swf].
    #[arg(long, value_enum)]
    to: Option<Format>,
    /// Machine size written to the output [default: the input's MaxProcs, MaxNodes or nb_res].
    #[arg(long, value_name = "N")]
    capacity: Option<u64>,
}

/// A workload format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// The Standard Workload Format.
    Swf,
    /// Batsim's JSON workload.
    Batsim,
}

/// What can go wrong in `cosched convert`.
#[derive(Debug, Error)]
pub enum ConvertError {
    /// The input could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A Batsim workload needs `nb_res`.
    #[error("{0}: no --capacity given and the input states none (a Batsim workload needs nb_res)")]
    NoCapacity(PathBuf),
    /// The SWF header could not be built.
    #[error(transparent)]
    Header(#[from] HeaderLineError),
    /// Writing failed.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// The output is the input.
    #[error(transparent)]
    Clash(#[from] Clash),
}

/// Runs the command.
pub fn run(args: &ConvertArgs) -> Result<(), ConvertError> {
    let to = args.to.unwrap_or_else(|| {
        if args
            .output
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            Format::Batsim
        } else {
            Format::Swf
        }
    });
    Plan::default()
        .input("INPUT", &args.input)
        .output("OUTPUT", &args.output)
        .check()?;
    let mut file = output::create(&args.output)?;
    let workload = input::read(&args.input)?;
    for (reason, n) in workload.invalid_by_reason() {
        eprintln!(
            "warning: {}: {n} invalid record(s) skipped: {reason}",
            args.input.display()
        );
    }
    let capacity = args.capacity.or(workload.stated_capacity.map(|(c, _)| c));
    let out_error = |e: io::Error| ConvertError::Output(OutputError::new(&args.output, e));
    match to {
        Format::Batsim => {
            let nb_res = capacity.ok_or_else(|| ConvertError::NoCapacity(args.input.clone()))?;
            batsim::write(&mut file, nb_res, &workload.jobs).map_err(|e| match e {
                BatsimError::Io(e) => out_error(e),
                other => ConvertError::Output(OutputError::new(&args.output, other)),
            })?;
        }
        Format::Swf => {
            let mut header = SwfHeader::new();
            header.push("Version", "2.2")?;
            header.push(
                "Conversion",
                format!(
                    "cosched convert from {} ({})",
                    file_name(&args.input),
                    workload.format
                ),
            )?;
            header.push("MaxJobs", workload.jobs.len())?;
            header.push("MaxRecords", workload.jobs.len())?;
            if let Some(c) = capacity {
                header.push("MaxNodes", c)?;
                header.push("MaxProcs", c)?;
            }
            let mut writer = SwfWriter::new(BufWriter::new(&mut file));
            writer.write_header(&header).map_err(out_error)?;
            for job in &workload.jobs {
                writer
                    .write_record(&SwfRecord::from_rigid(job))
                    .map_err(out_error)?;
            }
            writer
                .finish()
                .and_then(|mut w| w.flush())
                .map_err(out_error)?;
        }
    }
    let mut outputs = Outputs::default();
    outputs.add(file);
    Ok(outputs.commit()?)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}
