//! One policy per protocol written outside its crate, through public items only, and run in
//! that crate's simulator beside a built-in policy: what `examples/custom_policies.rs` prints.
//! Each submodule's `demo(quick)` returns its comparison table.
pub mod albatross;
pub mod balancer;
pub mod batch;
pub mod hybrid;
pub mod metasched;
pub mod rhic;
pub mod site;
