//! The paper's claims about a table or figure, checked on our numbers.
//!
//! Each example lists the statements its paper makes about the table or figure it reproduces
//! (an observation, a sentence of the evaluation that states a result) and checks each on our
//! numbers: where it comes from (`"Obs. 4"`, `"§V-A, Table I"`), the claim in a few words, our
//! figure(s), the paper's, and pass or fail. A failing claim stays listed with its measured
//! reason. [`OutDir::write_claims`](crate::OutDir::write_claims) prints them under
//! "Paper claims", adds them to `table.md` and writes `claims.json`, which
//! `cargo xtask reproduce` totals into "claims reproduced: N of M" per paper.
//!
//! ```
//! use cosched_examples::Claims;
//! let ours = 7.4;
//! let mut claims = Claims::new("balancer");
//! claims.check("§V-A, Table I", "dynamic batch wait several times below the split's",
//!     format!("{ours:.1}x"), "8x", ours >= 3.0);
//! claims.check("§V-B", "zero rejections at R = 12", "2 rejections", "0", false)
//!     .because("the week's largest burst asks 14 nodes at once");
//! claims.not_exercised("§V-B", "waiting W = 5 min cuts the rejections", "0/0", "30/3",
//!     "R = W = 0 rejects nothing on this week");
//! assert_eq!((claims.passed(), claims.len(), claims.unexercised()), (1, 2, 1));
//! ```

use serde::{Deserialize, Serialize};

use crate::{Cell, Table};

/// The file of checked claims an example writes into its output directory.
pub const CLAIMS_FILE: &str = "claims.json";

/// One claim of the paper, checked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// Where the paper states it (section, observation, table).
    pub source: String,
    /// The claim, in a few words.
    pub claim: String,
    /// Our figure(s).
    pub ours: String,
    /// The paper's figure(s), or what it states.
    pub paper: String,
    /// Whether our numbers bear it out.
    pub pass: bool,
    /// Why it fails (or any caveat), measured.
    pub reason: Option<String>,
    /// `false` when the workload cannot exercise the claim (e.g. no request waits, so W
    /// cannot matter): listed with its reason, counted neither as a pass nor as a fail.
    #[serde(default = "exercised_by_default")]
    pub exercised: bool,
}

fn exercised_by_default() -> bool {
    true
}

/// The claims one example checks, for one paper.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Claims {
    /// The paper's crate name (`balancer`, `rhic`, `metasched`, `hybrid`, `albatross`, `batch`).
    pub paper: String,
    /// The claims, in the order checked.
    pub claims: Vec<Claim>,
}

/// A claim just added, to attach a reason to.
pub struct ClaimRef<'a>(&'a mut Claim);

impl ClaimRef<'_> {
    /// Records why the claim fails, or a caveat on a pass.
    pub fn because(self, reason: impl Into<String>) {
        self.0.reason = Some(reason.into());
    }
}

impl Claims {
    /// No claims yet, for the paper of crate `paper`.
    pub fn new(paper: impl Into<String>) -> Self {
        Claims {
            paper: paper.into(),
            claims: Vec::new(),
        }
    }

    /// Checks one claim: `pass` is the verdict computed from `ours`.
    pub fn check(
        &mut self,
        source: impl Into<String>,
        claim: impl Into<String>,
        ours: impl Into<String>,
        paper: impl Into<String>,
        pass: bool,
    ) -> ClaimRef<'_> {
        self.claims.push(Claim {
            source: source.into(),
            claim: claim.into(),
            ours: ours.into(),
            paper: paper.into(),
            pass,
            reason: None,
            exercised: true,
        });
        let last = self.claims.len() - 1;
        ClaimRef(&mut self.claims[last])
    }

    /// Lists a claim this workload does not exercise, with `why` computed from the run; it
    /// counts neither as a pass nor as a fail.
    pub fn not_exercised(
        &mut self,
        source: impl Into<String>,
        claim: impl Into<String>,
        ours: impl Into<String>,
        paper: impl Into<String>,
        why: impl Into<String>,
    ) {
        self.check(source, claim, ours, paper, false).because(why);
        if let Some(last) = self.claims.last_mut() {
            last.exercised = false;
        }
    }

    /// Exercised claims that passed.
    pub fn passed(&self) -> usize {
        self.claims.iter().filter(|c| c.exercised && c.pass).count()
    }

    /// Claims checked (exercised ones only).
    pub fn len(&self) -> usize {
        self.claims.iter().filter(|c| c.exercised).count()
    }

    /// Claims listed as not exercised.
    pub fn unexercised(&self) -> usize {
        self.claims.len() - self.len()
    }

    /// Whether no claim was checked.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The claims as a table (source, claim, ours, paper, verdict, reason).
    pub fn table(&self) -> Table {
        let mut table = Table::new(
            "claims",
            match self.unexercised() {
                0 => format!(
                    "Paper claims: {} of {} reproduced",
                    self.passed(),
                    self.len()
                ),
                n => format!(
                    "Paper claims: {} of {} reproduced ({n} not exercised)",
                    self.passed(),
                    self.len()
                ),
            },
            ["source", "claim", "ours", "paper", "verdict", "reason"],
        );
        for c in &self.claims {
            table.row([
                Cell::Text(c.source.clone()),
                Cell::Text(c.claim.clone()),
                Cell::Text(c.ours.clone()),
                Cell::Text(c.paper.clone()),
                Cell::Text(
                    match (c.exercised, c.pass) {
                        (false, _) => "not exercised",
                        (true, true) => "pass",
                        (true, false) => "FAIL",
                    }
                    .to_owned(),
                ),
                c.reason.clone().map_or(Cell::Empty, Cell::Text),
            ]);
        }
        table
    }
}
