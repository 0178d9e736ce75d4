//! RHIC (Clay, Shen, Ma, Gu), Figure 8 (§4.4): accuracy of the four foreground-CPU predictors
//! the paper compares on the four Table 2 workloads — moving average (RHIC's choice),
//! auto-regression, auto-correlation and the signature-FFT + Markov-chain hybrid of the
//! authors' earlier work (PRESS, via CloudScale [25]) — with 10, 20, 30 and 60 minutes of 1 s
//! history and 5 and 10 minutes of lookahead: the absolute error (0–100 % of `CPU_max`) of the
//! predicted mean over the lookahead, mean ± sd over seeds.

use cosched_core::SeedStreams;
use cosched_core::stats::Spread;
use cosched_examples::rhic::{RhicArgs, checks_table, show_with};
use cosched_examples::{BarChart, Cell, Claims, Sweep, Table};
use cosched_forecast::series::{FftMarkov, FftMarkovPath};
use cosched_rhic::env::{BurstModel, Workload};
use cosched_rhic::predictor::PredictorKind;
use cosched_rhic::scenario::mean;

const NAME: &str = "rhic_fig8_predictors";
const METHODS: [PredictorKind; 4] = [
    PredictorKind::MovingAverage,
    PredictorKind::AutoRegression(3),
    PredictorKind::AutoCorrelation,
    PredictorKind::FftMarkov,
];

/// One trace's result: each method's mean absolute error, and how often FFT+Markov found a
/// repeating signature.
struct TraceResult {
    errors: Vec<f64>,
    signature_share: f64,
}

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args = RhicArgs::parse_with("RHIC Figure 8: foreground predictors' accuracy");
    let quick = args.common.quick;
    let mut out = args.common.output(NAME)?;
    let seeds = args.seeds(5);
    let histories: &[usize] = if quick { &[10] } else { &[10, 20, 30, 60] };
    let lookaheads = [5usize, 10];
    let points = if quick { 4 } else { 24 };
    let mut cases = Vec::new();
    for &seed in &seeds {
        for (wi, w) in Workload::ALL.into_iter().enumerate() {
            for &h in histories {
                for &l in &lookaheads {
                    cases.push((seed, wi, w, h, l));
                }
            }
        }
    }
    let fft_markov = FftMarkov::default();
    let results = Sweep::new(NAME, cases).run(|&(seed, wi, w, h, l)| {
        let Ok(model) = BurstModel::of(&w.stats()) else {
            return None;
        };
        let mut rng = SeedStreams::new(seed).stream("fig8", wi as u64);
        let (hs, ls) = (h * 60, l * 60);
        let len = hs + points * 300 + ls;
        let mut p = model.start(&mut rng);
        let trace: Vec<f64> = (0..len).map(|_| p.step(&mut rng)).collect();
        let at = |i: usize| hs + i * 300;
        let actual =
            |i: usize| -> Option<f64> { Some(mean(trace.get(at(i)..at(i) + ls)?.iter().copied())) };
        let errors = METHODS
            .iter()
            .map(|m| {
                mean((0..points).filter_map(|i| {
                    let history = trace.get(at(i) - hs..at(i))?;
                    Some((m.predict(history, ls)? - actual(i)?).abs())
                }))
            })
            .collect();
        let signatures = (0..points)
            .filter(|&i| {
                trace
                    .get(at(i) - hs..at(i))
                    .and_then(|history| fft_markov.predict_with_path(history, ls))
                    .is_some_and(|(_, path)| matches!(path, FftMarkovPath::Signature(_)))
            })
            .count();
        Some(TraceResult {
            errors,
            signature_share: signatures as f64 / points as f64,
        })
    });
    // Each method's error for (seed, history, lookahead): the mean over the four workloads.
    let by_seed = |seed: u64, h: usize, l: usize, method: usize| {
        mean(
            results
                .iter()
                .filter(|((s, _, _, hh, ll), _)| (*s, *hh, *ll) == (seed, h, l))
                .filter_map(|(_, r)| r.as_ref()?.errors.get(method).copied()),
        )
    };
    let mut header = vec!["history (min)".to_owned(), "lookahead (min)".to_owned()];
    header.extend(METHODS.iter().map(|m| format!("{} (mean ± sd)", m.name())));
    let mut table = Table::new(
        NAME,
        "Mean absolute error of the predicted mean foreground CPU (0–100), over workloads; \
         mean ± sd over seeds",
        header,
    )
    .with_notes(format!(
        "Traces from the Table 2 model (`cosched_rhic::env::BurstModel`), {points} predictions \
         5 minutes apart per trace, seeds {seeds:?}. FFT+Markov is PRESS's signature/Markov \
         hybrid (`cosched_forecast::series::FftMarkov`; thresholds ours). Paper (§4.4, Fig. 8): \
         moving average is the most accurate, auto-correlation identical (it falls back to the \
         moving average)."
    ));
    // Per method, per seed: the mean over every (history, lookahead) cell.
    let mut per_seed: Vec<Vec<f64>> = vec![Vec::new(); METHODS.len()];
    let mut per_cell: Vec<Vec<f64>> = vec![Vec::new(); METHODS.len()];
    for &h in histories {
        for &l in &lookaheads {
            let mut row = vec![Cell::from(Some(h as u64)), Cell::from(Some(l as u64))];
            for (i, cell_means) in per_cell.iter_mut().enumerate() {
                let xs: Vec<f64> = seeds.iter().map(|&s| by_seed(s, h, l, i)).collect();
                let spread = Spread::of(&xs);
                cell_means.push(spread.map_or(f64::NAN, |s| s.mean));
                row.push(Cell::Text(show_with(spread, 2)));
            }
            table.row(row);
        }
    }
    for (i, v) in per_seed.iter_mut().enumerate() {
        for &s in &seeds {
            v.push(mean(histories.iter().flat_map(|&h| {
                lookaheads.iter().map(move |&l| by_seed(s, h, l, i))
            })));
        }
    }
    out.write_table(&table)?;
    let mut categories = Vec::new();
    for &h in histories {
        for &l in &lookaheads {
            categories.push(format!("{h}/{l} min"));
        }
    }
    let mut chart = BarChart::new(
        "predictors",
        "Foreground prediction error by history / lookahead (Fig. 8)",
        categories,
    )
    .y_label("mean absolute error (0-100)");
    for (m, v) in METHODS.iter().zip(&per_cell) {
        chart = chart.series(m.name(), v.iter().copied());
    }
    out.write_plot(&chart)?;

    let spreads: Vec<Option<Spread>> = per_seed.iter().map(|v| Spread::of(v)).collect();
    let mean_of = |i: usize| {
        spreads
            .get(i)
            .copied()
            .flatten()
            .map_or(f64::NAN, |s| s.mean)
    };
    let ma = mean_of(0);
    let summary: Vec<String> = METHODS
        .iter()
        .zip(&spreads)
        .map(|(m, s)| format!("{} {}", m.name(), show_with(*s, 2)))
        .collect();
    let mut claims = Claims::new("rhic");
    let best_other = (1..METHODS.len())
        .min_by(|&a, &b| mean_of(a).total_cmp(&mean_of(b)))
        .unwrap_or(1);
    let best = ma <= mean_of(best_other) + 1e-9;
    // Per seed, is the moving average beaten? (the gap against the seeds' spread)
    let beaten = |i: usize| {
        per_seed[0]
            .iter()
            .zip(&per_seed[i])
            .filter(|(a, b)| b < a)
            .count()
    };
    let check = claims.check(
        "§4.4, Fig. 8",
        "the moving average predicts the foreground CPU most accurately",
        summary.join("; "),
        "moving average best",
        best,
    );
    if !best {
        let name = METHODS.get(best_other).map_or(String::new(), |m| m.name());
        check.because(format!(
            "{name} beats the moving average by {:.2} points on average ({} of {} seeds); our \
             Table 2 traces are stationary with short bursts, where AR's short memory gains a \
             little, while the paper's real VCL traces are not stationary",
            ma - mean_of(best_other),
            beaten(best_other),
            seeds.len(),
        ));
    }
    let same = per_cell[0]
        .iter()
        .zip(&per_cell[2])
        .all(|(a, b)| (a - b).abs() <= 0.05 * a.abs().max(1e-9));
    let mut checks = Claims::new("rhic");
    checks.check(
        "check (identity by construction)",
        "auto-correlation performs like the moving average (it falls back to it without a \
         repeating signature)",
        format!(
            "{} vs {}",
            show_with(spreads[0], 2),
            show_with(spreads[2], 2)
        ),
        "identical",
        same,
    );
    let signature_share = mean(
        results
            .iter()
            .filter_map(|(_, r)| r.as_ref().map(|r| r.signature_share)),
    );
    let fft_worse = mean_of(3) >= ma - 1e-9;
    claims
        .check(
            "§4.4, Fig. 8",
            "the FFT + Markov hybrid is less accurate than the moving average on short histories",
            format!(
                "FFT+Markov {} vs moving average {}; a repeating signature found in {:.0} % of \
                 predictions",
                show_with(spreads[3], 2),
                show_with(spreads[0], 2),
                100.0 * signature_share
            ),
            "moving average better",
            fft_worse,
        )
        .because(format!(
            "Table 2's foreground has no period, so the FFT finds a signature in {:.0} % of the \
             predictions and the rest are the Markov chain's: started from the last second's \
             state, with transitions counted sparsely ({} bins from 600–3,600 samples), it keeps \
             part of that state over the 5–10 minute lookahead, {:.2} points worse than the \
             history's mean",
            100.0 * signature_share,
            fft_markov.bins,
            mean_of(3) - ma
        ));
    out.write_table(&checks_table(&checks))?;
    out.write_claims(&claims)?;
    Ok(())
}
