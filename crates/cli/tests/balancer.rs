//! `cosched balancer weeks`, `notify` and `serve`'s refusals end to end (the live service
//! itself is tested in cosched-live, against a real Slurm and the cluster in memory).

use std::process::{Command, Output};

fn cosched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(args)
        .output()
        .expect("the binary runs")
}

const LCRC_HEADER: &str =
    "SubmitTime,StartTime,EndTime,QueuedTime,RunTime,NodesRequested,walltime,bslowdown\n";
const APS_HEADER: &str = "submit_time,start_time,end_time,run_time,wait_time\n";

/// Of two weeks, the one with the busier batch side and more on-demand work is the pick.
#[test]
fn weeks_scores_each_week_and_picks_the_challenging_one() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: String| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_owned()
    };
    // Quiet week: one 1-node job for an hour; busy week: 4 nodes all week.
    let quiet_l = write(
        "quiet_l.csv",
        format!("{LCRC_HEADER}0,0,3600,0,3600,1,3600,1\n"),
    );
    let busy_l = write(
        "busy_l.csv",
        format!("{LCRC_HEADER}0,0,604800,0,604800,4,604800,1\n"),
    );
    let quiet_a = write("quiet_a.csv", format!("{APS_HEADER}0,0,60,60,0\n"));
    let busy_a = write("busy_a.csv", format!("{APS_HEADER}0,0,86400,86400,0\n"));
    let out = cosched(&[
        "balancer",
        "weeks",
        "--batch-nodes",
        "4",
        "--lcrc",
        &quiet_l,
        &busy_l,
        "--aps",
        &quiet_a,
        &busy_a,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "week,batch_node_availability,od_core_hours,score,pick"
    );
    assert!(
        lines[1].starts_with("quiet_l,") && lines[1].ends_with(','),
        "{text}"
    );
    assert!(
        lines[2].starts_with("busy_l,0.0000,24.0,") && lines[2].ends_with(",*"),
        "{text}"
    );
}

#[test]
fn weeks_refuses_unpaired_files_and_notify_an_absent_service() {
    let out = cosched(&[
        "balancer", "weeks", "--lcrc", "a.csv", "b.csv", "--aps", "a.csv",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("error: --aps needs one file per --lcrc file")
    );
    let out = cosched(&[
        "balancer",
        "notify",
        "--url",
        "http://127.0.0.1:9",
        "--nodes",
        "n1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: cannot reach"));
}

/// `balancer weeks` refuses a job that ends before it starts and a job wider than
/// the batch cluster, each naming its line, and reports a full standard output as one
/// `error:` line instead of panicking.
#[test]
fn weeks_refuses_impossible_rows_and_reports_a_full_output() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: String| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_owned()
    };
    let aps = write("a.csv", format!("{APS_HEADER}0,0,60,60,0\n"));
    let weeks = |lcrc: &str| cosched(&["balancer", "weeks", "--lcrc", lcrc, "--aps", &aps]);
    let backwards = write(
        "backwards.csv",
        format!("{LCRC_HEADER}0,0,3600,0,3600,1,3600,1\n0,5000,4000,0,0,1,3600,1\n"),
    );
    let out = weeks(&backwards);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(":3:") && err.contains("EndTime"), "{err}");
    let wide = write(
        "wide.csv",
        format!("{LCRC_HEADER}0,0,3600,0,3600,4294967295,3600,1\n"),
    );
    let out = weeks(&wide);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("line 2") && err.contains("4294967295 nodes on a 304-node"),
        "{err}"
    );
    let ok = write("ok.csv", format!("{LCRC_HEADER}0,0,3600,0,3600,1,3600,1\n"));
    if let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") {
        let out = Command::new(env!("CARGO_BIN_EXE_cosched"))
            .args(["balancer", "weeks", "--lcrc", &ok, "--aps", &aps])
            .stdout(full)
            .output()
            .expect("the binary runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.starts_with("error: cannot write"), "{err}");
    } else {
        println!("skipping the /dev/full check: /dev/full cannot be opened");
    }
}

/// Writes `text` to `path`, readable by its owner only (as a token file must be).
fn private_file(path: &std::path::Path, text: &str) {
    std::fs::write(path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
}

/// `serve` beyond loopback without a token stops before it touches Slurm or binds anything;
/// a token too short to resist guessing is refused as well.
#[test]
fn serve_refuses_to_listen_beyond_loopback_without_a_token() {
    let serve = |listen: &str, token_file: Option<&std::path::Path>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cosched"));
        cmd.args(["balancer", "serve", "--slurm", "--listen", listen])
            .env_remove("COSCHED_TOKEN");
        if let Some(file) = token_file {
            cmd.arg("--token-file").arg(file);
        }
        cmd.output().expect("the binary runs")
    };
    for listen in ["0.0.0.0:8642", "[::]:8642"] {
        let out = serve(listen, None);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("refusing to serve") && err.contains("token"),
            "{err}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let weak = dir.path().join("token");
    private_file(&weak, "secret\n");
    let out = serve("0.0.0.0:8642", Some(&weak));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("at least 32"), "{err}");
}

/// `notify` presents the token of `--token-file` to a service that needs one (in this
/// process, on the cluster in memory): accepted with it, a 401 without it, and a missing
/// token file is the error before any call.
#[test]
fn notify_presents_its_token() {
    use cosched_balancer::policy::{Balancer, BalancerConfig, RmNodeState, Strategy};
    use cosched_live::{BearerToken, Logger, MemoryCluster, Service, ServiceConfig};

    const SECRET: &str = "notify-test-token-0123456789abcdef";
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("token");
    private_file(&token_file, &format!("{SECRET}\n"));
    let config = ServiceConfig {
        token: Some(BearerToken::new(SECRET).unwrap()),
        log: Logger::discard(),
        ..ServiceConfig::default()
    };
    let policy = Balancer::new(BalancerConfig::new(Strategy::Basic { static_reserve: 0 }));
    let cluster = MemoryCluster::new(&[RmNodeState::BatchBusy]);
    let service = Service::new(config, policy, cluster).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = rt.spawn(service.serve(listener, async move {
        let _ = stopped.await;
    }));
    let notify = |token_file: Option<&std::path::Path>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cosched"));
        cmd.args(["balancer", "notify", "--url", &url, "--nodes", "n1"])
            .env_remove("COSCHED_TOKEN");
        if let Some(file) = token_file {
            cmd.arg("--token-file").arg(file);
        }
        cmd.output().expect("the binary runs")
    };
    let with = notify(Some(&token_file));
    assert!(
        with.status.success(),
        "{}",
        String::from_utf8_lossy(&with.stderr)
    );
    let without = notify(None);
    assert_eq!(without.status.code(), Some(1));
    let err = String::from_utf8_lossy(&without.stderr);
    assert!(err.contains("answered 401"), "{err}");
    let absent = notify(Some(&dir.path().join("absent")));
    assert!(String::from_utf8_lossy(&absent.stderr).contains("cannot read the token file"));
    let _ = stop.send(());
    rt.block_on(served).unwrap().unwrap();
}
