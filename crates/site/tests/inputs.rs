//! A site refuses inputs it cannot run with a typed error naming the input, before it
//! allocates anything in proportion to them.

use cosched_core::{Duration, Lease, LeaseEnd, LeaseId, LeaseKind, Time};
use cosched_site::{
    MAX_NODES, OnDemandRole, QueueAsBatch, Roles, Site, SiteConfig, SiteError, SiteWorkload, Task,
};

fn roles() -> Roles {
    Roles {
        batch: Box::new(cosched_batch::scenario::easy()),
        on_demand: OnDemandRole::site(QueueAsBatch),
        scavenging: None,
    }
}

fn lease(id: u64) -> Lease {
    Lease::new(
        LeaseId(id),
        Time(0),
        1,
        LeaseKind::OnDemand {
            window: Duration(0),
        },
        LeaseEnd::Bounded(Duration(60)),
    )
    .expect("valid lease")
}

fn task(work: i64, ad: usize) -> Task {
    Task {
        id: 0,
        bag: 0,
        submit: Time(0),
        work: Duration(work),
        ad,
    }
}

fn refused(nodes: u32, workload: SiteWorkload) -> String {
    match Site::new(SiteConfig::new(nodes, Time(3_600)), roles(), workload) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn node_counts_outside_one_to_the_cap_are_refused() {
    for nodes in [0, MAX_NODES + 1, u32::MAX] {
        let e = refused(nodes, SiteWorkload::default());
        assert!(e.contains("nodes"), "{e}");
    }
}

#[test]
fn lease_ids_out_of_order_are_refused() {
    let workload = SiteWorkload {
        leases: vec![lease(0), lease(2)],
        ..SiteWorkload::default()
    };
    assert!(refused(4, workload).contains("lease"));
}

#[test]
fn a_task_without_work_or_with_an_unknown_ad_is_refused() {
    for (t, word) in [
        (task(0, 0), "work"),
        (task(-5, 0), "work"),
        (task(i64::MIN, 0), "work"),
        (task(60, 99), "ad"),
    ] {
        let workload = SiteWorkload {
            tasks: vec![t],
            ..SiteWorkload::default()
        };
        let e = refused(4, workload);
        assert!(e.contains(word), "{e}");
    }
}

#[test]
fn errors_are_typed() {
    let r = Site::new(
        SiteConfig::new(0, Time(10)),
        roles(),
        SiteWorkload::default(),
    );
    assert!(matches!(r, Err(SiteError::Param(_))));
}
