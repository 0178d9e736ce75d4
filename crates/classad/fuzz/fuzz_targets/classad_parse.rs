//! Any byte string, read as text, given to the ClassAd parser — as an expression, as an ad and
//! as the right-hand side of an attribute: no input panics, overflows the stack or hangs; an
//! expression that parses prints to text that parses again and prints the same (printing is a
//! fixed point), and evaluating it between two small ads, and matching a parsed ad, returns;
//! the readers of `condor_status -long` / `-json` output return too.

#![no_main]

use cosched_classad::{ClassAd, Expr, eval, match_ads, read};
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;

static ADS: LazyLock<(ClassAd, ClassAd)> = LazyLock::new(|| {
    let my = r#"[ Memory = 2048; Name = "job"; Loop = Loop + 1; Requirements = TARGET.Memory > 0 ]"#;
    let target = "[ Memory = 4096; Cpus = 8; IsCloud = true; Requirements = true; Rank = MY.Cpus ]";
    (my.parse().expect("the fuzz ads parse"), target.parse().expect("the fuzz ads parse"))
});

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let (my, target) = &*ADS;
    if let Ok(expr) = Expr::parse(src) {
        let printed = expr.to_string();
        let again = Expr::parse(&printed)
            .unwrap_or_else(|e| panic!("{src:?} printed as {printed:?}, which fails: {e}"));
        assert_eq!(again.to_string(), printed, "printing {src:?} is not a fixed point");
        let _ = eval(&expr, my, Some(target));
    }
    if let Ok(ad) = ClassAd::parse(src) {
        let _ = match_ads(&ad, target);
        let _ = match_ads(my, &ad);
    }
    let _ = ClassAd::parse(&format!("[ a = {src} ]"));
    let _ = read::parse_ads(src);
    let _ = read::parse_old_ads(src);
});
