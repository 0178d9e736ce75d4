//! The executor's edge towards the on-availability resource manager (OARM), as in §II-B of
//! Liu et al. (SC18): `reclaim_node` and `restore_node`, by hostname, in the Balancer's own
//! types. The paper's third call, `get_status_of_all_nodes`, is the executor's own business
//! (the simulator reads its cluster; the live service polls `sinfo` through
//! `cosched_live::LiveCluster::report`): policies never call the OARM.
//!
//! The simulator ([`crate::sim`]) implements it over a simulated batch cluster; a live adapter
//! implements it with `pbsnodes -o/-c` (Torque, as the paper) or `scontrol update
//! state=drain/resume` and `sinfo` (Slurm). [`execute`] applies a policy's node commands
//! through it and hands back the ODRM's share (grants and rejections).

use crate::policy::Command;
use cosched_core::NodeId;
use thiserror::Error;

/// A batch resource manager the Balancer takes idle nodes from and gives them back to.
pub trait Oarm {
    /// The resource manager's error (a failed command, an unreachable daemon).
    type Error: std::error::Error + Send + Sync + 'static;

    /// Takes the idle node `node` (hostname `name`) out of batch: no job may start on it.
    fn reclaim_node(&mut self, node: NodeId, name: &str) -> Result<(), Self::Error>;

    /// Gives the node back to batch.
    fn restore_node(&mut self, node: NodeId, name: &str) -> Result<(), Self::Error>;
}

/// A node command the OARM refused.
#[derive(Debug, Error)]
#[error("the batch resource manager refused {command:?} on {name}: {source}")]
pub struct ExecuteError<E: std::error::Error + 'static> {
    /// The command.
    pub command: Command,
    /// The node's hostname.
    pub name: String,
    /// The resource manager's error.
    #[source]
    pub source: E,
}

/// Applies the node commands (`Reclaim`, `Restore`) through `oarm`, in order, naming nodes by
/// `name`; returns the ODRM's commands (`Grant`, `Reject`) in order.
pub fn execute<'c, O: Oarm>(
    oarm: &mut O,
    name: impl Fn(NodeId) -> String,
    commands: impl IntoIterator<Item = &'c Command>,
) -> Result<Vec<&'c Command>, ExecuteError<O::Error>> {
    let mut odrm = Vec::new();
    for command in commands {
        let result = match command {
            Command::Reclaim(n) => oarm.reclaim_node(*n, &name(*n)).map_err(|e| (*n, e)),
            Command::Restore(n) => oarm.restore_node(*n, &name(*n)).map_err(|e| (*n, e)),
            Command::Grant { .. } | Command::Reject { .. } => {
                odrm.push(command);
                continue;
            }
        };
        if let Err((n, source)) = result {
            return Err(ExecuteError {
                command: command.clone(),
                name: name(n),
                source,
            });
        }
    }
    Ok(odrm)
}
