//! The grid's invariants: every job placed at most once and at one site, and accounted
//! exactly once; the environment identical across strategies; any policy of metasched's grid
//! protocol runs, a test-defined one included.

use cosched_core::policy::Policy;
use cosched_core::{Duration, JobId, RigidJob, Time};
use cosched_hybrid::workload::HybridJob;
use cosched_metasched::policy::{GridCommand, GridObservation, GridView};
use cosched_metasched::scenario::{Scenario, Strategy};
use cosched_metasched::site::SiteSpec;
use cosched_site::grid::{
    DEFAULT_SITES, Grid, GridConfig, GridError, GridInputs, GridReport, GridSite, GridSubmission,
};
use cosched_site::{Configuration, RoleParams, Site, SiteConfig, SiteWorkload};
use proptest::prelude::*;

/// A downstream policy: each held job to the site with the fewest queued cores, or
/// unassignable when no site has `cores` (test-defined, through public items only).
struct FewestQueued {
    cores: Vec<u32>,
}

impl Policy for FewestQueued {
    type Observation = GridObservation;
    type Command = GridCommand;
    type View = dyn GridView;
    type Error = std::convert::Infallible;

    fn observe(
        &mut self,
        _: Time,
        obs: &GridObservation,
        view: &dyn GridView,
        out: &mut Vec<GridCommand>,
    ) -> Result<(), Self::Error> {
        if let GridObservation::Cycle { jobs } = obs {
            for job in jobs {
                let queued = |k: usize| view.site_features(k).map_or(0.0, |f| f.queued_cores);
                let site = (0..view.site_count())
                    .filter(|&k| self.cores[k] >= job.cores)
                    .min_by(|&a, &b| queued(a).total_cmp(&queued(b)));
                out.push(match site {
                    Some(site) => GridCommand::Place {
                        job: job.id,
                        site,
                        predicted_wait: None,
                    },
                    None => GridCommand::Unassignable { job: job.id },
                });
            }
        }
        Ok(())
    }
}

/// Which policy a case runs.
#[derive(Clone, Copy, Debug)]
enum Which {
    Builtin(Strategy),
    Downstream,
}

fn run(inputs: &GridInputs, c: &Configuration, which: Which, seed: u64) -> GridReport {
    let grid = inputs
        .grid(c, &RoleParams::default(), seed)
        .expect("the grid builds");
    run_grid(grid, which)
}

fn run_grid(grid: Grid, which: Which) -> GridReport {
    match which {
        Which::Builtin(s) => {
            let scenario = Scenario::new(grid.specs().to_vec(), Vec::new(), 0, Duration(60));
            let mut policy = scenario
                .policy(&scenario.config(s, 1))
                .expect("metasched builds its policy");
            grid.run(&mut policy).expect("the grid runs")
        }
        Which::Downstream => {
            let cores = grid
                .specs()
                .iter()
                .map(|s| s.spec().max_job_cores)
                .collect();
            grid.run(&mut FewestQueued { cores })
                .expect("the grid runs")
        }
    }
}

fn which() -> impl proptest::strategy::Strategy<Value = Which> {
    prop_oneof![
        Just(Which::Builtin(Strategy::Bs)),
        Just(Which::Builtin(Strategy::Inst)),
        Just(Which::Builtin(Strategy::TwoPrice)),
        Just(Which::Builtin(Strategy::Mcmf)),
        Just(Which::Downstream),
    ]
}

/// Every submitted job placed at most once, at one site, or unassignable, or held: each
/// exactly once; each site's batch jobs are the ones placed there, each completed,
/// rejected, running or queued.
fn check_accounting(r: &GridReport, submitted: usize) {
    assert_eq!(r.submitted, submitted);
    let mut ids: Vec<JobId> = r.placements.iter().map(|(j, _)| *j).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), r.placements.len(), "a job placed twice");
    assert_eq!(r.placed() + r.unassignable + r.held_at_end, r.submitted);
    for (k, s) in r.sites.iter().enumerate() {
        let here = r.placements.iter().filter(|(_, site)| *site == k).count();
        assert_eq!(s.placed, here);
        let b = &s.report;
        assert_eq!(b.batch_submitted, here, "site {k}");
        assert_eq!(
            b.batch_completed + b.batch_rejected + b.batch_running + b.batch_queued,
            b.batch_submitted,
            "site {k}: {b:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    /// On the XSEDE setting (short spans, big nodes so that the sites are small), every
    /// job is accounted exactly once under every strategy and a downstream policy.
    #[test]
    fn every_job_is_placed_once_and_accounted_once(
        seed in 0u64..1_000,
        hours in 2i64..10,
        cpn in prop_oneof![Just(128u32), Just(256)],
        which in which(),
        c in proptest::sample::select(Configuration::rows()),
    ) {
        let inputs = GridInputs::xsede(&DEFAULT_SITES, cpn, Duration::from_hours(hours),
                                       Duration::from_mins(5)).unwrap();
        let grid = inputs.grid(&c, &RoleParams::default(), seed).unwrap();
        let submitted = grid.submissions().len();
        let r = run_grid(grid, which);
        check_accounting(&r, submitted);
    }

    /// Every strategy of a seed meets the same environment: the same jobs, sites and
    /// prices, and at each site the same leases and scavenged tasks.
    #[test]
    fn the_environment_is_identical_across_strategies(
        seed in 0u64..1_000,
        hours in 2i64..8,
        a in which(),
        b in which(),
    ) {
        let inputs = GridInputs::xsede(&DEFAULT_SITES, 256, Duration::from_hours(hours),
                                       Duration::from_mins(5)).unwrap();
        let (ga, gb) = (
            inputs.grid(&Configuration::all(), &RoleParams::default(), seed).unwrap(),
            inputs.grid(&Configuration::all(), &RoleParams::default(), seed).unwrap(),
        );
        prop_assert_eq!(ga.submissions(), gb.submissions());
        prop_assert_eq!(ga.specs(), gb.specs());
        for (x, y) in ga.sites().iter().zip(gb.sites()) {
            prop_assert_eq!(x.site.state().node_uses(), y.site.state().node_uses());
        }
        let (ra, rb) = (run_grid(ga, a), run_grid(gb, b));
        prop_assert_eq!(ra.submitted, rb.submitted);
        for (x, y) in ra.sites.iter().zip(&rb.sites) {
            prop_assert_eq!(x.report.leases.requested, y.report.leases.requested);
            prop_assert_eq!(x.report.scavenged_submitted, y.report.scavenged_submitted);
        }
    }

    /// Synthetic grids, jobs of any size (some fit no site): accounting holds, and a job
    /// too large for every site is never placed by the downstream policy.
    #[test]
    fn synthetic_grids_account_every_job(
        sizes in proptest::collection::vec((1u32..40, 60i64..20_000, 0i64..20_000, 0usize..3), 1..40),
        nodes in proptest::collection::vec(4u32..24, 3),
        which in which(),
    ) {
        let end = Time(12 * 3600);
        let sites: Vec<GridSite> = nodes
            .iter()
            .enumerate()
            .map(|(k, &n)| GridSite {
                spec: SiteSpec {
                    name: format!("s{k}"),
                    cores: n * 16,
                    max_job_cores: n * 16,
                    max_walltime: Duration::from_hours(24),
                    watts_per_core: 50.0 + 10.0 * k as f64,
                    gflops_per_core: 8.0 + 4.0 * k as f64,
                    prices_usd_per_mwh: (0..48).map(|h| 20.0 + ((h + 7 * k) % 24) as f64).collect(),
                    timezone_lag_hours: 0,
                }
                .build()
                .unwrap(),
                site: Site::new(
                    SiteConfig::new(n, end),
                    Configuration::batch().roles(&RoleParams::default()).unwrap(),
                    SiteWorkload::default(),
                )
                .unwrap(),
            })
            .collect();
        let jobs: Vec<GridSubmission> = sizes
            .iter()
            .enumerate()
            .map(|(i, &(size, runtime, submit, home))| GridSubmission {
                home,
                job: HybridJob::Rigid {
                    job: RigidJob::new(JobId(i as u64), Time(submit), size, Duration(runtime),
                                       Duration(runtime)).unwrap(),
                    setup: Duration::ZERO,
                },
            })
            .collect();
        let largest = nodes.iter().max().copied().unwrap_or(0);
        let too_big: Vec<JobId> = jobs.iter().filter(|j| j.job.size() > largest)
            .map(|j| j.job.id()).collect();
        let grid = Grid::new(sites, jobs.clone(), GridConfig::new(16)).unwrap();
        let r = run_grid(grid, which);
        check_accounting(&r, jobs.len());
        if matches!(which, Which::Downstream) {
            prop_assert!(r.placements.iter().all(|(j, _)| !too_big.contains(j)));
        }
    }
}

/// Same inputs and seed: the same report, to the bit.
#[test]
fn a_run_is_deterministic() {
    let inputs =
        GridInputs::xsede(&DEFAULT_SITES, 128, Duration::from_hours(6), Duration(300)).unwrap();
    let a = run(
        &inputs,
        &Configuration::all(),
        Which::Builtin(Strategy::Mcmf),
        3,
    );
    let b = run(
        &inputs,
        &Configuration::all(),
        Which::Builtin(Strategy::Mcmf),
        3,
    );
    assert_eq!(a, b);
    assert!(a.placed() > 0);
}

/// BS keeps every job at its submission site; MCMF moves some (the XSEDE sites differ in
/// speed and price).
#[test]
fn bs_keeps_jobs_home_and_mcmf_moves_some() {
    let inputs =
        GridInputs::xsede(&DEFAULT_SITES, 64, Duration::from_hours(12), Duration(300)).unwrap();
    let bs = run(
        &inputs,
        &Configuration::batch(),
        Which::Builtin(Strategy::Bs),
        1,
    );
    assert!(bs.placed() > 0);
    assert_eq!(
        bs.sites.iter().map(|s| s.placed_home).sum::<usize>(),
        bs.placed()
    );
    let mcmf = run(
        &inputs,
        &Configuration::batch(),
        Which::Builtin(Strategy::Mcmf),
        1,
    );
    assert!(mcmf.sites.iter().map(|s| s.placed_home).sum::<usize>() < mcmf.placed());
}

/// A policy placing at a site the grid does not have, or deciding a job twice, is an error.
#[test]
fn bad_commands_are_typed_errors() {
    struct Bad(usize, bool);
    impl Policy for Bad {
        type Observation = GridObservation;
        type Command = GridCommand;
        type View = dyn GridView;
        type Error = std::convert::Infallible;
        fn observe(
            &mut self,
            _: Time,
            obs: &GridObservation,
            _: &dyn GridView,
            out: &mut Vec<GridCommand>,
        ) -> Result<(), Self::Error> {
            if let GridObservation::Cycle { jobs } = obs
                && let Some(j) = jobs.first()
            {
                let place = GridCommand::Place {
                    job: j.id,
                    site: self.0,
                    predicted_wait: None,
                };
                out.push(place);
                if self.1 {
                    out.push(place);
                }
            }
            Ok(())
        }
    }
    let inputs =
        GridInputs::xsede(&DEFAULT_SITES, 256, Duration::from_hours(6), Duration(300)).unwrap();
    let grid = || {
        inputs
            .grid(&Configuration::batch(), &RoleParams::default(), 1)
            .unwrap()
    };
    assert!(matches!(
        grid().run(&mut Bad(7, false)),
        Err(GridError::UnknownSite {
            site: 7,
            sites: 3,
            ..
        })
    ));
    assert!(matches!(
        grid().run(&mut Bad(0, true)),
        Err(GridError::NotHeld(_))
    ));
    assert!(matches!(
        GridInputs::xsede(&["Nowhere"], 16, Duration(3600), Duration(300)),
        Err(GridError::Param(_))
    ));
}
