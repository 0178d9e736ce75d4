//! The controller's goals and their scores: meet a deadline, minimise monetary cost, or
//! minimise energy. A lower [`Score`] is better.

use cosched_core::{NodeId, ParamError, Time};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// What RHIC optimises.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Goal {
    /// Finish as close to the deadline as possible, on its near side (see [`Score`]).
    Deadline(Time),
    /// Minimise the money spent from now to completion.
    Cost(CostModel),
    /// Minimise the energy spent from now to completion.
    Energy(PowerModel),
}

/// A candidate pool's score; lower is better, ordered by `late` first, then `value`.
///
/// For a deadline, `value = |estimate − deadline|` (seconds) and `late` says the estimate is
/// past it: a pool that meets the deadline always beats one that misses it, so the search
/// picks the estimate nearest the deadline on its near (early) side — the smallest pool that
/// still makes it — and, when none does, the one that misses by least. For cost and energy,
/// `late` is false and `value` is dollars or joules.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// The estimate misses the deadline.
    pub late: bool,
    /// Seconds from the deadline, dollars or joules (infinite for a pool that never
    /// finishes; saved as the string `"inf"`, since JSON has no infinity).
    #[serde(with = "non_finite")]
    pub value: f64,
}

/// Serde for an `f64` that may be infinite or NaN, which JSON cannot hold (`serde_json`
/// writes them as `null` and cannot read that back): a number when finite, else the string
/// `"inf"`, `"-inf"` or `"NaN"`.
mod non_finite {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        match *v {
            v if v.is_finite() => s.serialize_f64(v),
            v if v.is_nan() => s.serialize_str("NaN"),
            v if v > 0.0 => s.serialize_str("inf"),
            _ => s.serialize_str("-inf"),
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Number(f64),
        Text(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match Repr::deserialize(d)? {
            Repr::Number(v) => Ok(v),
            Repr::Text(t) => match t.as_str() {
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                "NaN" => Ok(f64::NAN),
                other => Err(D::Error::custom(format!(
                    "expected a number, \"inf\", \"-inf\" or \"NaN\", got `{}`",
                    cosched_core::excerpt(other)
                ))),
            },
        }
    }
}

impl Eq for Score {}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Score {
    fn cmp(&self, other: &Self) -> Ordering {
        self.late
            .cmp(&other.late)
            .then(self.value.total_cmp(&other.value))
    }
}

/// Money in units of 1/3600 micro-dollar, so that a whole number of seconds at a whole
/// number of micro-dollars per hour is exact.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Money(pub u128);

impl Money {
    /// In dollars.
    pub fn usd(self) -> f64 {
        self.0 as f64 / 3.6e9
    }
}

/// Hourly rates, charged only for what is used: dedicated nodes for the whole run, each
/// volunteer for the time it is in the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CostModel {
    dedicated_micro_usd_per_hour: u64,
    volunteer_micro_usd_per_hour: u64,
}

impl Default for CostModel {
    /// The paper's rates: $1.00/h per dedicated node, $0.42/h per volunteer.
    fn default() -> Self {
        CostModel {
            dedicated_micro_usd_per_hour: 1_000_000,
            volunteer_micro_usd_per_hour: 420_000,
        }
    }
}

/// A bill: one charge per node, and their sum.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bill {
    /// Charge of each dedicated node, in order.
    pub dedicated: Vec<Money>,
    /// Charge of each volunteer, as given.
    pub volunteers: Vec<(NodeId, Money)>,
    /// The sum of every charge.
    pub total: Money,
}

impl CostModel {
    /// Rates in micro-dollars per node-hour.
    pub fn new(dedicated_micro_usd_per_hour: u64, volunteer_micro_usd_per_hour: u64) -> Self {
        CostModel {
            dedicated_micro_usd_per_hour,
            volunteer_micro_usd_per_hour,
        }
    }

    /// Dollars per second of `dedicated` dedicated nodes and `volunteers` volunteers.
    pub fn usd_per_s(&self, dedicated: usize, volunteers: usize) -> f64 {
        (dedicated as f64 * self.dedicated_micro_usd_per_hour as f64
            + volunteers as f64 * self.volunteer_micro_usd_per_hour as f64)
            / 3.6e9
    }

    /// The exact bill: `dedicated` nodes for `dedicated_s` seconds each, every volunteer for
    /// its own seconds of use.
    ///
    /// ```
    /// use cosched_core::NodeId;
    /// use cosched_rhic::CostModel;
    /// let bill = CostModel::default().bill(2, 3600, &[(NodeId(7), 1800)]);
    /// assert!((bill.total.usd() - 2.21).abs() < 1e-12); // 2 · $1 + ½ · $0.42
    /// ```
    pub fn bill(&self, dedicated: u32, dedicated_s: u64, volunteers: &[(NodeId, u64)]) -> Bill {
        let d = Money(u128::from(self.dedicated_micro_usd_per_hour) * u128::from(dedicated_s));
        let dedicated = vec![d; dedicated as usize];
        let volunteers: Vec<(NodeId, Money)> = volunteers
            .iter()
            .map(|&(n, s)| {
                let m = u128::from(self.volunteer_micro_usd_per_hour) * u128::from(s);
                (n, Money(m))
            })
            .collect();
        let total = dedicated.iter().map(|m| m.0).sum::<u128>()
            + volunteers.iter().map(|(_, m)| m.0).sum::<u128>();
        Bill {
            dedicated,
            volunteers,
            total: Money(total),
        }
    }
}

/// A CPU power model per node: `P(u) = idle + (max − idle) · u`, `u` the utilisation, at the
/// nodes' one clock frequency.
///
/// The paper regresses power on utilisation and frequency from a micro-benchmark (§4.3); its
/// runs keep every core at 2 GHz (§5.1), where the regression is a line in `u`. Dedicated
/// nodes are billed in full; a volunteer only for its increment over what its host would draw
/// anyway, `(max − idle) · CPU_consumed_there / CPU_max` (§4.3).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PowerModel {
    idle_w: f64,
    max_w: f64,
}

impl PowerModel {
    /// Idle and full-load power, watts, `0 ≤ idle_w ≤ max_w`.
    pub fn new(idle_w: f64, max_w: f64) -> Result<Self, ParamError> {
        ParamError::check(
            idle_w.is_finite() && idle_w >= 0.0,
            "idle_w",
            idle_w,
            "must be finite and >= 0",
        )?;
        ParamError::check(
            max_w.is_finite() && max_w >= idle_w,
            "max_w",
            max_w,
            "must be finite and >= idle_w",
        )?;
        Ok(PowerModel { idle_w, max_w })
    }

    /// The ARC node at 2 GHz, calibrated on Table 1's Pi rows (exhaustive runs, a baseline) as
    /// the simulator runs them: the idle and busy watts under which its Pi at 0 and 36
    /// volunteers (seeds 1–3) bills 5,461 and 2,963 Wh (the `rhic_table1` example solves the
    /// two rows and checks these values). The simulator's Pi at 36 takes ≈ 0.50 h, not the
    /// 0.44 h Table 1's $9.25 implies, so the power is fitted to those runs, not to 0.44 h:
    /// 194 W idle (59 % of busy, above HGCC's 34 %, §3.3), 328 W busy.
    pub fn arc() -> Self {
        PowerModel {
            idle_w: 194.1,
            max_w: 328.3,
        }
    }

    /// The pool's power, watts: `dedicated` nodes idling plus the dynamic power of
    /// `cpu_consumed` cores on nodes of `cpu_max` cores (dedicated and volunteer alike: a
    /// volunteer's idle power is its host's, not the job's).
    ///
    /// ```
    /// use cosched_rhic::PowerModel;
    /// let p = PowerModel::new(100.0, 200.0).unwrap();
    /// assert_eq!(p.pool_w(2, 6.0, 4.0), 350.0); // 2 · 100 + 100 · 6 / 4
    /// ```
    pub fn pool_w(&self, dedicated: usize, cpu_consumed: f64, cpu_max: f64) -> f64 {
        dedicated as f64 * self.idle_w + self.dynamic_w(cpu_consumed, cpu_max)
    }

    /// The dynamic power of `cpu_used` cores on a node of `cpu_max` cores, watts: what a
    /// volunteer adds to its host, `(max − idle) · cpu_used / cpu_max`.
    ///
    /// ```
    /// use cosched_rhic::PowerModel;
    /// let p = PowerModel::new(100.0, 200.0).unwrap();
    /// assert_eq!(p.dynamic_w(1.0, 4.0), 25.0);
    /// assert_eq!(p.idle_w() + p.dynamic_w(4.0, 4.0), 200.0);
    /// ```
    pub fn dynamic_w(&self, cpu_used: f64, cpu_max: f64) -> f64 {
        (self.max_w - self.idle_w) * cpu_used / cpu_max
    }

    /// Idle power of a node, watts.
    pub fn idle_w(&self) -> f64 {
        self.idle_w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A score of a pool that never finishes survives a JSON round trip (a policy's saved
    /// state holds its last search's score).
    #[test]
    fn non_finite_scores_round_trip_through_json() {
        for value in [f64::INFINITY, f64::NEG_INFINITY, 12.5, 0.0] {
            let s = Score { late: true, value };
            let text = serde_json::to_string(&s).unwrap();
            let back: Score = serde_json::from_str(&text).unwrap();
            assert_eq!(back, s, "{text}");
        }
        let nan: Score = serde_json::from_str(r#"{"late":false,"value":"NaN"}"#).unwrap();
        assert!(nan.value.is_nan());
        assert_eq!(
            serde_json::to_string(&Score {
                late: false,
                value: f64::INFINITY
            })
            .unwrap(),
            r#"{"late":false,"value":"inf"}"#
        );
        assert!(serde_json::from_str::<Score>(r#"{"late":false,"value":"lots"}"#).is_err());
    }
}
