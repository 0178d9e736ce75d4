//! Workload input and generation: the Standard Workload Format and seeded synthetic models.

pub mod swf;
