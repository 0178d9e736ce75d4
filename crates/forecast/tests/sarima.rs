//! The seasonal ARIMA fits and forecasts against statsmodels (fixture made by
//! `tests/fixtures/gen_sarima.py`), and their invariances as property tests.

use cosched_forecast::sarima::Sarima;
use proptest::prelude::*;
use serde::Deserialize;

/// `fixtures/sarima_statsmodels.json`.
#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

/// A 72-hour series, statsmodels' (1,0,0)×(1,1,0)₂₄ fit of it and its 48-hour forecast.
#[derive(Deserialize)]
struct Case {
    series: Vec<f64>,
    phi: f64,
    seasonal_phi: f64,
    sigma2: f64,
    log_likelihood: f64,
    forecast: Vec<f64>,
}

fn fixture() -> Fixture {
    serde_json::from_str(include_str!("fixtures/sarima_statsmodels.json"))
        .expect("the fixture matches its schema")
}

/// Forecasts agree with statsmodels' to 1e-3 $/MWh over 48 hours; coefficients to 1e-4.
#[test]
fn fits_and_forecasts_match_statsmodels() {
    let model = Sarima::new(24).unwrap();
    let (mut worst_forecast, mut worst_coef, mut worst_ll) = (0.0_f64, 0.0_f64, 0.0_f64);
    let cases = fixture().cases;
    for (k, case) in cases.iter().enumerate() {
        let fit = model.fit(&case.series).unwrap();
        for (ours, theirs) in [(fit.phi, case.phi), (fit.seasonal_phi, case.seasonal_phi)] {
            worst_coef = worst_coef.max((ours - theirs).abs());
        }
        worst_ll = worst_ll.max((fit.log_likelihood - case.log_likelihood).abs());
        // Our optimum must be at least as good as statsmodels'.
        assert!(fit.log_likelihood >= case.log_likelihood - 1e-6, "case {k}");
        assert!(
            (fit.sigma2 - case.sigma2).abs() < 1e-4 * case.sigma2,
            "case {k}"
        );
        let expected = &case.forecast;
        for (h, (ours, theirs)) in fit
            .forecast(expected.len())
            .iter()
            .zip(expected)
            .enumerate()
        {
            worst_forecast = worst_forecast.max((ours - theirs).abs());
            assert!(
                (ours - theirs).abs() < 1e-3,
                "case {k} hour {h}: {ours} vs {theirs}"
            );
        }
    }
    assert!(worst_coef < 1e-4, "coefficients differ by {worst_coef}");
    println!(
        "vs statsmodels ({} series): max |Δcoef| {worst_coef:.2e}, max |Δloglik| {worst_ll:.2e}, \
         max |Δforecast| {worst_forecast:.2e} $/MWh",
        cases.len()
    );
}

proptest! {
    // Each case fits two models (a few ms in a debug build).
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_fit_is_blind_to_level_and_equivariant_to_scale(
        series in prop::collection::vec(0.0f64..100.0, 72),
        level in -50.0f64..50.0,
        exponent in -3i32..4,
    ) {
        // A seasonal difference removes a constant level; maximum likelihood is equivariant to
        // a change of unit (powers of two keep the arithmetic exact up to the level shift).
        let model = Sarima::new(24).unwrap();
        let base = model.fit(&series).unwrap();
        let scale = 2f64.powi(exponent);
        let moved: Vec<f64> = series.iter().map(|v| v * scale + level).collect();
        let fit = model.fit(&moved).unwrap();
        prop_assert!((fit.phi - base.phi).abs() < 1e-6, "{} vs {}", fit.phi, base.phi);
        prop_assert!((fit.seasonal_phi - base.seasonal_phi).abs() < 1e-6);
        prop_assert!((fit.sigma2 - base.sigma2 * scale * scale).abs() <= 1e-6 * fit.sigma2.max(1e-9));
        // Within 1e-6 of the data's magnitude (the optimiser stops at a finite tolerance).
        let magnitude = 100.0 * scale + level.abs();
        for (a, b) in fit.forecast(30).iter().zip(base.forecast(30)) {
            prop_assert!((a - (b * scale + level)).abs() < 1e-6 * magnitude, "{} vs {} (scale {}, level {})", a, b * scale + level, scale, level);
        }
    }
}
