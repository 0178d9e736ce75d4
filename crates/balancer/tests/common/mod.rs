//! Test helpers: drive a policy of the Balancer's protocol one call at a time.

#![allow(dead_code)]

use cosched_balancer::{BalancerPolicy, Command, Observation};
use cosched_core::Time;

/// One call at a time, the commands returned (policies read the view only at start).
pub trait Drive: BalancerPolicy {
    /// `observe`, its commands.
    fn step(&mut self, now: Time, o: Observation) -> Result<Vec<Command>, Self::Error> {
        let mut out = Vec::new();
        self.observe(now, &o, &[], &mut out)?;
        Ok(out)
    }

    /// `wake`, its commands.
    fn tick(&mut self, now: Time) -> Result<Vec<Command>, Self::Error> {
        let mut out = Vec::new();
        self.wake(now, &[], &mut out)?;
        Ok(out)
    }
}

impl<P: BalancerPolicy + ?Sized> Drive for P {}
