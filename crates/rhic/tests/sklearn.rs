//! Mean-shift against scikit-learn's `MeanShift` (flat kernel, unit weights), on the fixture
//! generated once by `fixtures/gen_mean_shift.py`.

use cosched_rhic::{IoSample, MeanShiftParams, mean_shift};

struct Case {
    bandwidth: f64,
    samples: Vec<IoSample>,
    centres: Vec<(f64, f64)>,
}

fn cases() -> Vec<Case> {
    let text = include_str!("fixtures/mean_shift.txt");
    let mut cases: Vec<Case> = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| f[i].parse::<f64>().expect("fixture numbers parse");
        match f[0] {
            "bandwidth" => cases.push(Case {
                bandwidth: num(1),
                samples: Vec::new(),
                centres: Vec::new(),
            }),
            "sample" => cases
                .last_mut()
                .expect("bandwidth first")
                .samples
                .push(IoSample {
                    cpu_available: num(1),
                    cpu_consumed: num(2),
                    weight: 1.0,
                }),
            "centre" => cases
                .last_mut()
                .expect("bandwidth first")
                .centres
                .push((num(1), num(2))),
            other => panic!("unknown fixture line {other}"),
        }
    }
    cases
}

#[test]
fn centres_match_scikit_learn() {
    let cases = cases();
    assert_eq!(cases.len(), 2);
    for case in cases {
        let params = MeanShiftParams::new(case.bandwidth, 300).expect("valid");
        let ours = mean_shift(&case.samples, &params);
        assert_eq!(
            ours.len(),
            case.centres.len(),
            "bandwidth {}",
            case.bandwidth
        );
        for (c, &(a, u)) in ours.iter().zip(&case.centres) {
            assert!((c.cpu_available - a).abs() < 1e-9, "{c:?} vs ({a}, {u})");
            assert!((c.cpu_consumed - u).abs() < 1e-9, "{c:?} vs ({a}, {u})");
        }
        let members: f64 = ours.iter().map(|c| c.weight).sum();
        assert_eq!(members, case.samples.len() as f64);
    }
}
