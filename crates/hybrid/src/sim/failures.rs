//! Node failures as a function of time only (§V-C).

use super::*;

/// The length of one block of the failure process, drawn from its own stream: a week.
pub const FAILURE_BLOCK: Duration = Duration::from_hours(24 * 7);

/// Node failures as a function of time only: block `k` (`[k·FAILURE_BLOCK, (k+1)·FAILURE_BLOCK)`)
/// draws its Poisson arrivals, failed nodes and repair times from the stream
/// `("failures", k)`, so the failures after any instant are the same whatever happened
/// before it (and under every mechanism), and the process can jump over an idle gap of any
/// length in O(1).
pub(super) struct FailureProcess {
    streams: SeedStreams,
    nodes: u32,
    gap: Exp<f64>,
    repair: Exp<f64>,
    block: i64,
    rng: StreamRng,
    cursor: Time,
}

impl FailureProcess {
    pub(super) fn new(
        streams: SeedStreams,
        failures: Failures,
        nodes: u32,
    ) -> Result<Self, ParamError> {
        let exp = |mean: Duration, name: &'static str| {
            Exp::new(1.0 / mean.0 as f64).map_err(|_| ParamError::new(name, mean.0, "must be > 0"))
        };
        Ok(FailureProcess {
            streams,
            nodes,
            gap: exp(failures.mtbf, "mtbf")?,
            repair: exp(failures.mean_repair, "mean_repair")?,
            block: i64::MIN,
            rng: streams.stream("failures", 0),
            cursor: Time(i64::MIN),
        })
    }

    pub(super) fn enter(&mut self, block: i64) {
        self.block = block;
        self.rng = self.streams.stream("failures", block as u64);
        self.cursor = Time(block.saturating_mul(FAILURE_BLOCK.0));
    }

    pub(super) fn draw(&mut self, mean: &Exp<f64>) -> Duration {
        Duration((mean.sample(&mut self.rng).round() as i64).max(1))
    }

    /// The first failure at or after `t`: when, which node, how long its repair takes.
    /// `None` past the last representable block.
    pub(super) fn next_at_or_after(&mut self, t: Time) -> Option<(Time, NodeId, Duration)> {
        let block = t.0.div_euclid(FAILURE_BLOCK.0);
        if block > self.block || t < self.cursor {
            self.enter(block);
        }
        loop {
            let gap = self.draw(&self.gap.clone());
            let node = NodeId(self.rng.random_range(0..self.nodes));
            let repair = self.draw(&self.repair.clone());
            let at = self.cursor.checked_add(gap)?;
            let block_end = self.block.checked_add(1)?.checked_mul(FAILURE_BLOCK.0)?;
            if at.0 >= block_end {
                let next = self.block.checked_add(1)?;
                self.enter(next);
                continue;
            }
            self.cursor = at;
            if at >= t {
                return Some((at, node, repair));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_a_function_of_time_only() {
        let failures = Failures {
            mtbf: Duration::from_hours(5),
            mean_repair: DEFAULT_REPAIR,
        };
        let mut a = FailureProcess::new(SeedStreams::new(9), failures, 100).unwrap();
        let mut b = FailureProcess::new(SeedStreams::new(9), failures, 100).unwrap();
        // One process walks every failure from 0; the other jumps to day 10 after an idle
        // gap: from there on they agree.
        let mut t = Time(0);
        let mut walked = Vec::new();
        while let Some((at, node, repair)) = a.next_at_or_after(t) {
            if at >= Time(864_000) {
                walked.push((at, node, repair));
            }
            if walked.len() == 20 {
                break;
            }
            t = Time(at.0 + 1);
        }
        let mut t = Time(864_000);
        for &expected in &walked {
            let got = b.next_at_or_after(t).unwrap();
            assert_eq!(got, expected);
            t = Time(got.0.0 + 1);
        }
        // A gap of 10^18 s is jumped over at once.
        let far = b.next_at_or_after(Time(1_000_000_000_000_000_000)).unwrap();
        assert!(far.0 >= Time(1_000_000_000_000_000_000));
    }
}
