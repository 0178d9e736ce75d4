//! Partitionable slots, as HTCondor's startd offers them: one slot advertises the machine's
//! unclaimed `Cpus`, `Memory` (MB) and `Disk` (KB) with `PartitionableSlot = true`; a job
//! that matches it gets a *dynamic* slot carved out of it, sized by the job's
//! `RequestCpus`, `RequestMemory` and `RequestDisk`, and the partitionable slot keeps the
//! rest (HTCondor manual, *Policy Configuration → Dynamic Provisioning: Partitionable and
//! Dynamic Slots*).
//!
//! The requests are evaluated in the job (`MY`) against the slot (`TARGET`) and then rounded
//! up as HTCondor's default `MODIFY_REQUEST_EXPR_REQUEST*` settings do: memory to a multiple
//! of 128 MB, disk to a multiple of 1024 KB, CPUs as they are. A job without `RequestCpus`
//! asks for one CPU; without `RequestMemory` / `RequestDisk`, for none.
//!
//! ```
//! use cosched_classad::{ClassAd, Value, slots};
//! let pslot: ClassAd = r#"[ Name = "slot1@node7"; PartitionableSlot = true; Cpus = 8;
//!     Memory = 16384; Disk = 1000000; Requirements = START && WithinResourceLimits; START = true;
//!     WithinResourceLimits = TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory ]"#.parse()?;
//! let job: ClassAd = "[ RequestCpus = 2; RequestMemory = 3000; Requirements = true ]".parse()?;
//! assert!(slots::matches(&job, &pslot));
//! let (dynamic, rest) = slots::split(&pslot, &job, 1).expect("the job fits");
//! assert_eq!(dynamic.eval_attr("Memory", None), Value::Int(3072));
//! assert_eq!(dynamic.eval_attr("Name", None), Value::from("slot1_1@node7"));
//! assert_eq!(rest.eval_attr("Cpus", None), Value::Int(6));
//! # Ok::<(), cosched_classad::ParseError>(())
//! ```

use super::{ClassAd, Value, symmetric_match};

/// What a job asks of a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// CPUs.
    pub cpus: i64,
    /// Memory, MB, rounded up to a multiple of 128.
    pub memory_mb: i64,
    /// Disk, KB, rounded up to a multiple of 1024.
    pub disk_kb: i64,
}

/// Whether `slot` is a partitionable slot (`PartitionableSlot` is true).
pub fn is_partitionable(slot: &ClassAd) -> bool {
    slot.eval_attr("PartitionableSlot", None).as_bool_equiv() == Some(true)
}

fn number(v: &Value) -> Option<i64> {
    match *v {
        Value::Int(i) => Some(i),
        Value::Real(r) if r.is_finite() => Some(r.ceil() as i64),
        Value::Bool(b) => Some(i64::from(b)),
        _ => None,
    }
}

fn round_up(x: i64, step: i64) -> i64 {
    x.div_euclid(step)
        .saturating_add(i64::from(x.rem_euclid(step) != 0))
        .saturating_mul(step)
}

/// The job's request against `slot` (see the module docs for defaults and rounding).
pub fn request(job: &ClassAd, slot: &ClassAd) -> Request {
    let get =
        |name: &str, default: i64| number(&job.eval_attr(name, Some(slot))).unwrap_or(default);
    Request {
        cpus: get("RequestCpus", 1).max(0),
        memory_mb: round_up(get("RequestMemory", 0).max(0), 128),
        disk_kb: round_up(get("RequestDisk", 0).max(0), 1024),
    }
}

/// Whether `slot`'s free resources cover `req` (a resource the slot does not advertise is
/// not checked).
pub fn fits(req: &Request, slot: &ClassAd) -> bool {
    let has =
        |name: &str, want: i64| number(&slot.eval_attr(name, None)).is_none_or(|have| want <= have);
    has("Cpus", req.cpus) && has("Memory", req.memory_mb) && has("Disk", req.disk_kb)
}

/// Whether the negotiator would give `slot` to `job`: both `Requirements` hold and, for a
/// partitionable slot, the job's request fits what is left of it.
pub fn matches(job: &ClassAd, slot: &ClassAd) -> bool {
    symmetric_match(job, slot) && (!is_partitionable(slot) || fits(&request(job, slot), slot))
}

/// Carves the dynamic slot for `job` out of the partitionable slot `pslot`: the dynamic slot
/// (named `slotN_<index>@host` after `slotN@host`, `PartitionableSlot = false`,
/// `DynamicSlot = true`, `SlotType = "Dynamic"`, the requested resources) and the
/// partitionable slot with those resources taken away. `None` if `pslot` is not
/// partitionable or the request does not fit.
pub fn split(pslot: &ClassAd, job: &ClassAd, index: u32) -> Option<(ClassAd, ClassAd)> {
    if !is_partitionable(pslot) {
        return None;
    }
    let req = request(job, pslot);
    if !fits(&req, pslot) {
        return None;
    }
    let mut dynamic = pslot.clone();
    let mut rest = pslot.clone();
    for (name, want) in [
        ("Cpus", req.cpus),
        ("Memory", req.memory_mb),
        ("Disk", req.disk_kb),
    ] {
        if let Some(have) = number(&pslot.eval_attr(name, None)) {
            dynamic.insert_value(name, want);
            rest.insert_value(name, have - want);
        }
    }
    dynamic.insert_value("PartitionableSlot", false);
    dynamic.insert_value("DynamicSlot", true);
    dynamic.insert_value("SlotType", "Dynamic");
    if let Value::Str(name) = pslot.eval_attr("Name", None) {
        let (slot, host) = name.split_once('@').unwrap_or((&name, ""));
        let at = if host.is_empty() { "" } else { "@" };
        dynamic.insert_value("Name", format!("{slot}_{index}{at}{host}"));
    }
    Some((dynamic, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_like_htcondor_and_must_fit() {
        let pslot: ClassAd =
            "[ PartitionableSlot = true; Cpus = 2; Memory = 1000; Requirements = true ]"
                .parse()
                .unwrap();
        let job: ClassAd = "[ RequestMemory = 900; Requirements = true ]"
            .parse()
            .unwrap();
        let req = request(&job, &pslot);
        assert_eq!((req.cpus, req.memory_mb, req.disk_kb), (1, 1024, 0));
        assert!(!matches(&job, &pslot), "900 MB rounds up to 1024 > 1000");
        let small: ClassAd = "[ RequestMemory = 500; RequestCpus = 2; Requirements = true ]"
            .parse()
            .unwrap();
        let (_, rest) = split(&pslot, &small, 1).unwrap();
        assert_eq!(rest.eval_attr("Cpus", None), Value::Int(0));
        assert!(!matches(&small, &rest), "no CPU left");
        let static_slot: ClassAd = "[ Cpus = 1; Memory = 10; Requirements = true ]"
            .parse()
            .unwrap();
        assert!(
            matches(&job, &static_slot),
            "static slots leave sizing to Requirements"
        );
        assert!(split(&static_slot, &job, 1).is_none());
    }
}
