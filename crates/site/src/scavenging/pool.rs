//! [`HtcPool`]: the built-in scavenging policy, a [`Sizer`] of the pool beside any policy of
//! Albatross's protocol for the cloud.

use cosched_albatross::policy::{AlbatrossPolicy, Command as ACommand, Observation as AObs};
use cosched_core::Time;
use cosched_core::policy::Policy;
use serde::{Deserialize, Serialize};

use super::{PoolCycle, ScavengingCommand};
use crate::{SiteError, SiteState};

/// How [`HtcPool`] sizes its share of the idle nodes, each negotiation cycle: it lends and
/// recalls nodes (the protocol's `Lend`, `LendNode`, `Recall` and `RecallNode`) and returns
/// how many more batch-idle nodes the pool may still borrow this cycle (Albatross counts them
/// as free desktop slots, with the free lent nodes). Built in: [`HarvestAll`], and
/// [`super::RhicSizer`] over any policy of RHIC's protocol; any other is a type of one's own.
pub trait Sizer {
    /// One cycle's sizing: commands into `out`; the nodes the pool may still borrow.
    fn size(
        &mut self,
        now: Time,
        cycle: &PoolCycle,
        view: &SiteState,
        out: &mut Vec<ScavengingCommand>,
    ) -> Result<u32, SiteError>;
}

/// Every idle node while tasks wait (HTCondor's default: an idle machine advertises its
/// slot); free lent nodes go back when nothing waits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HarvestAll;

impl Sizer for HarvestAll {
    fn size(
        &mut self,
        _: Time,
        cycle: &PoolCycle,
        _: &SiteState,
        out: &mut Vec<ScavengingCommand>,
    ) -> Result<u32, SiteError> {
        let want = cycle.queued.saturating_sub(cycle.lent_free as usize);
        if want > 0 && cycle.lendable > 0 {
            out.push(ScavengingCommand::Lend {
                count: u32::try_from(want).unwrap_or(u32::MAX).min(cycle.lendable),
            });
        } else if cycle.queued == 0 && cycle.lent_free > 0 {
            out.push(ScavengingCommand::Recall {
                count: cycle.lent_free,
            });
        }
        Ok(cycle.lendable)
    }
}

/// The built-in scavenging policy (see the [module docs](super)): the pool sized by `S`,
/// bursting to the cloud under `C`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HtcPool<S, C> {
    sizer: S,
    cloud: C,
    #[serde(skip)]
    buf: Vec<ACommand>,
}

impl<S: Sizer, C: AlbatrossPolicy> HtcPool<S, C> {
    /// The pool sized by `sizer`, bursting to the cloud under `cloud`.
    pub fn new(sizer: S, cloud: C) -> Self {
        HtcPool {
            sizer,
            cloud,
            buf: Vec::new(),
        }
    }

    /// How it sizes the pool (RHIC's state, for one).
    pub fn sizer(&self) -> &S {
        &self.sizer
    }
}

impl<S, C> Policy for HtcPool<S, C>
where
    S: Sizer,
    C: AlbatrossPolicy,
    C::Error: std::fmt::Display,
{
    type Observation = PoolCycle;
    type Command = ScavengingCommand;
    type View = SiteState;
    type Error = SiteError;

    fn start(
        &mut self,
        now: Time,
        view: &SiteState,
        _: &mut Vec<ScavengingCommand>,
    ) -> Result<(), SiteError> {
        self.cloud
            .start(now, view.waiting_ads(), &mut self.buf)
            .map_err(|e| SiteError::role("scavenging (Albatross protocol)", e))?;
        self.buf.clear();
        Ok(())
    }

    fn observe(
        &mut self,
        now: Time,
        cycle: &PoolCycle,
        view: &SiteState,
        out: &mut Vec<ScavengingCommand>,
    ) -> Result<(), SiteError> {
        // Albatross sees the desktops as the free lent nodes and those the pool may still
        // borrow (under RHIC, only what it lent this cycle).
        let borrowable = self.sizer.size(now, cycle, view, out)?;
        let obs = AObs {
            dispatched: cycle.dispatched,
            cloud_nodes: cycle.cloud_nodes.clone(),
            free_desktop_slots: (cycle.lent_free + borrowable) as usize,
            instance_types: cycle.instance_types.clone(),
        };
        self.cloud
            .observe(now, &obs, view.waiting_ads(), &mut self.buf)
            .map_err(|e| SiteError::role("scavenging (Albatross protocol)", e))?;
        out.extend(self.buf.drain(..).map(|c| match c {
            ACommand::Start {
                instance,
                count,
                lifetime,
            } => ScavengingCommand::CloudStart {
                instance,
                count,
                lifetime,
            },
            ACommand::Stop { node } => ScavengingCommand::CloudStop(node),
        }));
        Ok(())
    }
}
