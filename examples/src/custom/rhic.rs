//! RHIC's protocol: a custom policy, "Eq. 3 held", that sizes the pool once from the profile at
//! the supportable volunteer CPU of Eq. 3's worst case (Algorithm 1's first step) and keeps it
//! there, replacing departed volunteers with the least-loaded unused ones; run on Wordcount on
//! the paper's testbed beside RHIC. Public items only: the protocol's observations and commands,
//! the shared cloud view and selection, [`CommandedPool`] and [`SaturationEstimate`].

use cosched_core::policy::Policy;
use cosched_core::{Duration, ParamError, Time};
use cosched_rhic::env::JobProfile;
use cosched_rhic::policy::{CloudView, Command, CommandedPool, Observation, Selection};
use cosched_rhic::scenario::{self, Metric};
use cosched_rhic::sim::{Outcome, RhicSim, SimConfig};
use cosched_rhic::{Candidate, SaturationEstimate};

use crate::{Cell, Table};

/// Eq. 3's worst case, held: as many of the least-loaded volunteers as their predicted residual
/// CPU takes to reach `(1 / BWUtil − 1) · CPU_max`.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Eq3Held {
    dedicated: u32,
    cpu_max: f64,
    cloud: CloudView,
    selection: Selection,
    pool: CommandedPool,
    target_cpu: Option<f64>,
    slot_memory_mb: u64,
}

impl Eq3Held {
    fn new(dedicated: u32, cpu_max: f64) -> Self {
        Eq3Held {
            dedicated,
            cpu_max,
            cloud: CloudView::new(Duration::from_mins(10)),
            selection: Selection::default(),
            pool: CommandedPool::default(),
            target_cpu: None,
            slot_memory_mb: 1,
        }
    }
}

impl Policy for Eq3Held {
    type Observation = Observation;
    type Command = Command;
    type View = ();
    type Error = ParamError;

    fn observe(
        &mut self,
        now: Time,
        o: &Observation,
        _: &(),
        out: &mut Vec<Command>,
    ) -> Result<(), ParamError> {
        self.pool.observe(o);
        if self.cloud.observe(now, o) {
            return Ok(());
        }
        match *o {
            Observation::Profile(p) => {
                let e = SaturationEstimate::new(p.bw_util, self.cpu_max, self.dedicated)?;
                self.target_cpu = Some(e.worst_case_cpu);
                self.slot_memory_mb = p.slot_memory_mb;
            }
            Observation::Progress { .. } => {
                let Some(target) = self.target_cpu else {
                    return Ok(());
                };
                let (mut all, mut sorted) = (Vec::new(), Vec::new());
                self.cloud
                    .screen(self.cpu_max, self.slot_memory_mb, &mut all, &mut sorted);
                // The smallest prefix of the best candidates reaching the target.
                let mut cpu = 0.0;
                let size = sorted
                    .iter()
                    .take_while(|c| {
                        let short = cpu < target;
                        cpu += Candidate::contribution(c);
                        short
                    })
                    .count();
                self.selection.refresh(&sorted);
                self.selection.resize(size, &sorted);
                self.pool.move_to(self.selection.members(), out);
            }
            _ => {}
        }
        Ok(())
    }
}

/// Eq. 3 held against RHIC on Wordcount (cost goal, $0.42/h volunteers): cost, energy, completion,
/// volunteers, joins; `quick` runs a quarter of the job.
///
/// # Errors
/// A run the simulator rejects.
pub fn demo(quick: bool) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
    let cost = Metric::Cost(scenario::price(0.42));
    let run = scenario::Run::paper(
        JobProfile::Wordcount,
        cost.goal(),
        scenario::Approach::RHIC,
        quick,
        1,
    );
    let (config, job) = (run.config, run.job);
    let cores = f64::from(config.env.cores);
    let sim = RhicSim::new(config.clone())?;
    let runs: [(&str, Outcome); 2] = [
        (
            "Eq. 3 held (custom)",
            sim.run(&mut Eq3Held::new(job.dedicated, cores), &job)?,
        ),
        ("RHIC", sim.run(&mut scenario::rhic(&config, &job)?, &job)?),
    ];
    Ok(table(&config, &runs).markdown())
}

fn table(config: &SimConfig, runs: &[(&str, Outcome)]) -> Table {
    let mut t = Table::new(
        "custom_rhic",
        "RHIC protocol: a custom policy beside RHIC (Wordcount, cost goal, seed 1)",
        [
            "policy",
            "cost ($)",
            "energy (Wh)",
            "completion (s)",
            "mean volunteers",
            "joins",
        ],
    );
    for (name, o) in runs {
        t.row([
            Cell::from(*name),
            Cell::fixed(o.bill_at(&config.cost).total.usd(), 2),
            Cell::fixed(Metric::Energy.of(o), 0),
            Cell::from(Some(o.completion.0 as u64)),
            Cell::fixed(o.mean_volunteers, 1),
            Cell::from(Some(o.joins)),
        ]);
    }
    t
}

#[cfg(test)]
mod tests {
    /// The demo runs both policies to completion and reports them side by side.
    #[test]
    fn demo_reports_both_policies() {
        let table = super::demo(true).expect("the demo runs");
        println!("{table}");
        assert!(
            table.contains("Eq. 3 held (custom)") && table.contains("| RHIC"),
            "{table}"
        );
    }
}
