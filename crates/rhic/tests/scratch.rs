use cosched_rhic::env::JobProfile;
use cosched_rhic::sim::{SimConfig, Strategy, simulate};
use cosched_rhic::{CostModel, Goal, PowerModel};
#[test]
#[ignore]
fn scratch() {
    for p in JobProfile::HADOOP {
        let mut line = format!("{:>10}", p.name());
        for k in [0usize, 6, 12, 18, 24, 30, 36] {
            let c = SimConfig::new(p, Goal::Cost(CostModel::default()), Strategy::Fixed(k));
            let o = simulate(&c).unwrap();
            line += &format!(" k{k}:${:.2}/{:.0}Wh/{}m", o.bill.total.usd(), o.energy_j / 3600.0, o.completion.0 / 60);
        }
        for g in [Goal::Cost(CostModel::default()), Goal::Energy(PowerModel::arc())] {
            let c = SimConfig::new(p, g, Strategy::Rhic);
            let o = simulate(&c).unwrap();
            line += &format!(" | RHIC ${:.2} {:.0}Wh {:.1}v {}m", o.bill.total.usd(), o.energy_j / 3600.0, o.mean_volunteers, o.completion.0/60);
        }
        println!("{line}");
    }
}
