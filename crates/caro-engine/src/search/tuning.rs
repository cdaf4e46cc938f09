//! The search's tunables that a tuner moves at run time ([`Tuning`]):
//! the pruning and reduction thresholds and margins, the move caps, the
//! leaf VCF's length, the aspiration window and the root threat
//! searches' budgets. Their defaults are the constants of
//! [`super::params`], where each is documented; a player searches with
//! the defaults unless given another [`Tuning`]
//! ([`crate::CaroPlayer::set_tuning`]), as `caro tune` does.

use std::fmt;

use super::params::{
    ASPIRATION_WINDOW, FUTILITY_MARGIN, FUTILITY_MAX_DEPTH, LMP_MOVES, LMR_MIN_DEPTH,
    LMR_MIN_INDEX, RFP_MARGIN, RFP_MAX_DEPTH, ROOT_REFUTE_NODES, ROOT_REFUTE_SHARE, ROOT_VCF_SHARE,
    ROOT_VCT_SHARE, VCF_LEAF_DEPTH, WIDTH_BY_DEPTH,
};

/// Values of the search's run-time tunables (see the module's page).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuning {
    /// [`super::params::LMR_MIN_DEPTH`].
    pub lmr_min_depth: i32,
    /// [`super::params::LMR_MIN_INDEX`].
    pub lmr_min_index: usize,
    /// [`super::params::RFP_MAX_DEPTH`].
    pub rfp_max_depth: i32,
    /// [`super::params::RFP_MARGIN`].
    pub rfp_margin: i32,
    /// [`super::params::FUTILITY_MAX_DEPTH`].
    pub futility_max_depth: i32,
    /// [`super::params::FUTILITY_MARGIN`].
    pub futility_margin: i32,
    /// [`super::params::LMP_MOVES`], by depth left (index 0 unused).
    pub lmp_moves: [usize; 4],
    /// [`super::params::WIDTH_BY_DEPTH`].
    pub width_by_depth: [usize; 4],
    /// [`super::params::VCF_LEAF_DEPTH`].
    pub vcf_leaf_depth: u32,
    /// [`super::params::ASPIRATION_WINDOW`].
    pub aspiration_window: i32,
    /// [`super::params::ROOT_VCF_SHARE`].
    pub root_vcf_share: f64,
    /// [`super::params::ROOT_VCT_SHARE`] (at least `root_vcf_share`).
    pub root_vct_share: f64,
    /// [`super::params::ROOT_REFUTE_SHARE`] (at least `root_vct_share`).
    pub root_refute_share: f64,
    /// [`super::params::ROOT_REFUTE_NODES`].
    pub root_refute_nodes: u64,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            lmr_min_depth: LMR_MIN_DEPTH,
            lmr_min_index: LMR_MIN_INDEX,
            rfp_max_depth: RFP_MAX_DEPTH,
            rfp_margin: RFP_MARGIN,
            futility_max_depth: FUTILITY_MAX_DEPTH,
            futility_margin: FUTILITY_MARGIN,
            lmp_moves: LMP_MOVES,
            width_by_depth: WIDTH_BY_DEPTH,
            vcf_leaf_depth: VCF_LEAF_DEPTH,
            aspiration_window: ASPIRATION_WINDOW,
            root_vcf_share: ROOT_VCF_SHARE,
            root_vct_share: ROOT_VCT_SHARE,
            root_refute_share: ROOT_REFUTE_SHARE,
            root_refute_nodes: ROOT_REFUTE_NODES,
        }
    }
}

/// One tunable: its name, its range, the step a tuner perturbs it by at
/// the end of a run, and how to read and write it in a [`Tuning`].
#[derive(Clone, Copy)]
pub struct Tunable {
    /// The name, as in `rfp_margin=100`.
    pub name: &'static str,
    /// Least value.
    pub min: f64,
    /// Greatest value.
    pub max: f64,
    /// SPSA's perturbation at the end of a run (its `c_end`): about a
    /// twentieth of the range, at least one step of an integer.
    pub step: f64,
    /// Whether the value is an integer (a real value is rounded).
    pub integer: bool,
    get: fn(&Tuning) -> f64,
    set: fn(&mut Tuning, f64),
}

impl fmt::Debug for Tunable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}, {}]", self.name, self.min, self.max)
    }
}

impl Tunable {
    /// The value in `tuning`.
    #[must_use]
    pub fn get(&self, tuning: &Tuning) -> f64 {
        (self.get)(tuning)
    }

    /// Sets the value in `tuning`, clamped to the range (and rounded for
    /// an integer).
    pub fn set(&self, tuning: &mut Tuning, value: f64) {
        let v = value.clamp(self.min, self.max);
        (self.set)(tuning, if self.integer { v.round() } else { v });
    }
}

macro_rules! tunable {
    ($name:literal, $min:expr, $max:expr, $step:expr, int, $($field:tt)+) => {
        Tunable {
            name: $name,
            min: $min as f64,
            max: $max as f64,
            step: $step as f64,
            integer: true,
            get: |t| t.$($field)+ as f64,
            set: |t, v| t.$($field)+ = v as _,
        }
    };
    ($name:literal, $min:expr, $max:expr, $step:expr, real, $($field:tt)+) => {
        Tunable {
            name: $name,
            min: $min,
            max: $max,
            step: $step,
            integer: false,
            get: |t| t.$($field)+,
            set: |t, v| t.$($field)+ = v,
        }
    };
}

/// Every run-time tunable, with the ranges of [`super::params`].
pub const TUNABLES: &[Tunable] = &[
    tunable!("lmr_min_depth", 2, 6, 1, int, lmr_min_depth),
    tunable!("lmr_min_index", 1, 8, 1, int, lmr_min_index),
    tunable!("rfp_max_depth", 0, 6, 1, int, rfp_max_depth),
    tunable!("rfp_margin", 30, 600, 15, int, rfp_margin),
    tunable!("futility_max_depth", 0, 4, 1, int, futility_max_depth),
    tunable!("futility_margin", 50, 800, 25, int, futility_margin),
    tunable!("lmp_moves_1", 3, 24, 1, int, lmp_moves[1]),
    tunable!("lmp_moves_2", 3, 24, 1, int, lmp_moves[2]),
    tunable!("lmp_moves_3", 3, 24, 1.5, int, lmp_moves[3]),
    tunable!("width_0", 6, 60, 1.5, int, width_by_depth[0]),
    tunable!("width_1", 6, 60, 1.5, int, width_by_depth[1]),
    tunable!("width_2", 6, 60, 2, int, width_by_depth[2]),
    tunable!("width_3", 6, 60, 2, int, width_by_depth[3]),
    tunable!("vcf_leaf_depth", 1, 10, 1, int, vcf_leaf_depth),
    tunable!("aspiration_window", 20, 400, 15, int, aspiration_window),
    tunable!("root_vcf_share", 0.005, 0.3, 0.01, real, root_vcf_share),
    tunable!("root_vct_share", 0.01, 0.5, 0.015, real, root_vct_share),
    tunable!(
        "root_refute_share",
        0.02,
        0.8,
        0.025,
        real,
        root_refute_share
    ),
    tunable!(
        "root_refute_nodes",
        100,
        10_000,
        100,
        int,
        root_refute_nodes
    ),
];

/// A tunable's name or value that could not be taken.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TuningError {
    /// No tunable has this name.
    #[error("no tunable is named {0:?} (the tunables: {names})", names = tunable_names())]
    UnknownName(String),
    /// Not `name=value`.
    #[error("{0:?} is not name=value")]
    NotAnAssignment(String),
    /// The value is not a number, or out of the tunable's range.
    #[error("{name}={value}: the value must be a number from {min} to {max}")]
    BadValue {
        /// The tunable.
        name: String,
        /// The value given.
        value: String,
        /// Least value.
        min: f64,
        /// Greatest value.
        max: f64,
    },
}

fn tunable_names() -> String {
    TUNABLES
        .iter()
        .map(|t| t.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The tunable named `name`.
///
/// # Errors
/// [`TuningError::UnknownName`] where none is.
pub fn tunable(name: &str) -> Result<&'static Tunable, TuningError> {
    TUNABLES
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| TuningError::UnknownName(name.to_string()))
}

impl Tuning {
    /// The defaults with the `name=value` assignments of `list` (separated
    /// by commas or white space) applied in turn.
    ///
    /// # Errors
    /// The first assignment that names no tunable, is not `name=value`,
    /// or gives a value out of range.
    pub fn parse(list: &str) -> Result<Tuning, TuningError> {
        let mut tuning = Tuning::default();
        for item in list.split([',', ' ', '\n', '\t']).filter(|s| !s.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| TuningError::NotAnAssignment(item.to_string()))?;
            let t = tunable(name.trim())?;
            let v: f64 = value
                .trim()
                .parse()
                .ok()
                .filter(|v: &f64| (t.min..=t.max).contains(v))
                .ok_or_else(|| TuningError::BadValue {
                    name: t.name.to_string(),
                    value: value.to_string(),
                    min: t.min,
                    max: t.max,
                })?;
            t.set(&mut tuning, v);
        }
        Ok(tuning.ordered())
    }

    /// The tuning with the root's cumulative shares in order (each window
    /// ends after the one before it): the VCT's share at least the VCF's,
    /// the refutation's at least the VCT's.
    #[must_use]
    pub fn ordered(mut self) -> Tuning {
        self.root_vct_share = self.root_vct_share.max(self.root_vcf_share);
        self.root_refute_share = self.root_refute_share.max(self.root_vct_share);
        self
    }
}

impl fmt::Display for Tuning {
    /// Every tunable as `name=value`, comma-separated: what
    /// [`Tuning::parse`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, t) in TUNABLES.iter().enumerate() {
            if n > 0 {
                f.write_str(",")?;
            }
            let v = t.get(self);
            if t.integer {
                write!(f, "{}={}", t.name, v as i64)?;
            } else {
                write!(f, "{}={:.4}", t.name, v)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_within_every_range() {
        let d = Tuning::default();
        for t in TUNABLES {
            let v = t.get(&d);
            assert!((t.min..=t.max).contains(&v), "{t:?} holds {v}");
            assert!(t.step > 0.0 && t.step < t.max - t.min, "{t:?}");
        }
    }

    #[test]
    fn display_and_parse_round_trip() {
        let mut t = Tuning::default();
        tunable("rfp_margin").unwrap().set(&mut t, 87.4);
        tunable("root_vct_share").unwrap().set(&mut t, 0.0625);
        tunable("width_2").unwrap().set(&mut t, 22.0);
        assert_eq!(t.rfp_margin, 87);
        assert_eq!(t.width_by_depth[2], 22);
        assert_eq!(Tuning::parse(&t.to_string()).unwrap(), t);
        assert_eq!(Tuning::parse("").unwrap(), Tuning::default());
    }

    #[test]
    fn bad_assignments_say_what_is_wrong() {
        assert!(matches!(
            Tuning::parse("rfp_margin=100,nope=3"),
            Err(TuningError::UnknownName(n)) if n == "nope"
        ));
        assert!(matches!(
            Tuning::parse("rfp_margin"),
            Err(TuningError::NotAnAssignment(_))
        ));
        let e = Tuning::parse("rfp_margin=5000").unwrap_err();
        assert!(e.to_string().contains("from 30 to 600"), "{e}");
        assert!(Tuning::parse("rfp_margin=abc").is_err());
    }

    #[test]
    fn set_clamps_and_rounds() {
        let mut t = Tuning::default();
        let lmr = tunable("lmr_min_index").unwrap();
        lmr.set(&mut t, 99.0);
        assert_eq!(t.lmr_min_index, 8);
        lmr.set(&mut t, 2.6);
        assert_eq!(t.lmr_min_index, 3);
    }

    /// The nodes of `caro:10` searching a quiet middle game to depth 6
    /// with `tuning` (none: the player untouched).
    fn nodes_with(tuning: Option<Tuning>) -> u64 {
        use crate::player::{Context, Limits, Player, SearchInfo, StopFlag};
        use crate::search::testing::game;
        use crate::search::CaroPlayer;
        let g = game(
            caro_core::Rule::Freestyle,
            15,
            5,
            "h8 i9 i8 g8 h9 h7 j7 g10",
        );
        let mut p = CaroPlayer::new(10, 1);
        if let Some(t) = tuning {
            p.set_tuning(t);
        }
        let mut sink = |_: &SearchInfo| {};
        let mut ctx = Context::new(Limits::depth(6), StopFlag::new(), &mut sink);
        p.choose(&g, &mut ctx).unwrap().info.unwrap().nodes
    }

    #[test]
    fn the_search_follows_its_tuning() {
        let untouched = nodes_with(None);
        assert_eq!(nodes_with(Some(Tuning::default())), untouched);
        let wide = Tuning::parse("width_1=40,width_2=40,width_3=40,lmp_moves_3=24").unwrap();
        assert_ne!(nodes_with(Some(wide)), untouched);
        let pruned = Tuning::parse("rfp_margin=30,lmr_min_index=1").unwrap();
        assert_ne!(nodes_with(Some(pruned)), untouched);
    }

    #[test]
    fn the_root_shares_are_kept_in_order() {
        let t =
            Tuning::parse("root_vcf_share=0.2,root_vct_share=0.1,root_refute_share=0.05").unwrap();
        assert!(t.root_vcf_share <= t.root_vct_share);
        assert!(t.root_vct_share <= t.root_refute_share);
    }
}
