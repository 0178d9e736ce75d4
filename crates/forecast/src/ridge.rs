//! Ridge regression in closed form: the fallback of Murali and Vadhiyar's wait-time predictor
//! (`cosched-metasched`) for jobs that fall in no cluster of the site's recent history.
//!
//! With an unpenalised intercept, as scikit-learn's `Ridge(fit_intercept=True)`: the columns
//! of `X` and `y` are centred, the coefficients solve `(XcᵀXc + λI) w = Xcᵀyc` — the 9×9
//! intercept system with its intercept row eliminated, which leaves a `D×D` symmetric positive
//! definite system for `λ > 0` — by a Cholesky factorisation, and the intercept is
//! `ȳ − x̄·w`. `λ = 0` is ordinary least squares, which fails with [`RidgeError::Singular`]
//! when the centred columns are linearly dependent.
//!
//! ```
//! use cosched_forecast::ridge::Ridge;
//!
//! // y = 2·x₀ − x₁ + 3, recovered exactly by least squares.
//! let x = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 2.0]];
//! let y: Vec<f64> = x.iter().map(|r| 2.0 * r[0] - r[1] + 3.0).collect();
//! let fit = Ridge::new(0.0).unwrap().fit(&x, &y).unwrap();
//! assert!((fit.coef[0] - 2.0).abs() < 1e-12 && (fit.intercept - 3.0).abs() < 1e-12);
//! assert!((fit.predict(&[2.0, 2.0]) - 5.0).abs() < 1e-12);
//! ```

use cosched_core::ParamError;
use ndarray::{Array2, ArrayView1, Axis};
use thiserror::Error;

/// Why a ridge fit failed.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum RidgeError {
    /// No rows.
    #[error("ridge regression needs at least one row")]
    Empty,
    /// `X` and `y` have different lengths.
    #[error("{rows} rows of features but {targets} targets")]
    LengthMismatch {
        /// Rows of `X`.
        rows: usize,
        /// Entries of `y`.
        targets: usize,
    },
    /// A feature or target is NaN or infinite.
    #[error("row {row} holds a non-finite value")]
    NotFinite {
        /// The offending row, from 0.
        row: usize,
    },
    /// `XcᵀXc + λI` is not positive definite (only possible with `λ = 0`).
    #[error("the normal equations are singular (collinear features and lambda = 0)")]
    Singular,
}

/// The ridge penalty, validated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ridge {
    lambda: f64,
}

impl Ridge {
    /// Penalty `lambda` on the squared coefficients (scikit-learn's `alpha`).
    ///
    /// # Errors
    /// [`ParamError`] if `lambda` is negative or not finite.
    pub fn new(lambda: f64) -> Result<Ridge, ParamError> {
        ParamError::check(
            lambda.is_finite() && lambda >= 0.0,
            "lambda",
            lambda,
            "must be finite and >= 0",
        )?;
        Ok(Ridge { lambda })
    }

    /// The penalty.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// Fits `y ≈ x·coef + intercept`. Cost `O(n·D² + D³)`; the `n×D` feature matrix is one
    /// `ndarray` allocation.
    ///
    /// # Errors
    /// [`RidgeError`] for empty or mismatched input, non-finite values, or a singular system.
    pub fn fit<const D: usize>(
        &self,
        x: &[[f64; D]],
        y: &[f64],
    ) -> Result<RidgeFit<D>, RidgeError> {
        if x.len() != y.len() {
            return Err(RidgeError::LengthMismatch {
                rows: x.len(),
                targets: y.len(),
            });
        }
        if x.is_empty() {
            return Err(RidgeError::Empty);
        }
        if let Some(row) =
            (0..x.len()).find(|&i| !y[i].is_finite() || x[i].iter().any(|v| !v.is_finite()))
        {
            return Err(RidgeError::NotFinite { row });
        }
        // The feature matrix and the normal equations on ndarray: Xc = X − x̄, A = XcᵀXc + λI,
        // b = Xcᵀ(y − ȳ).
        let design = Array2::from_shape_fn((x.len(), D), |(i, k)| x[i][k]);
        let targets = ArrayView1::from(y);
        let (Some(x_mean), Some(y_mean)) = (design.mean_axis(Axis(0)), targets.mean()) else {
            return Err(RidgeError::Empty);
        };
        let centred = &design - &x_mean;
        let gram = centred.t().dot(&centred) + Array2::<f64>::eye(D) * self.lambda;
        let rhs = centred.t().dot(&(&targets - y_mean));
        let a: [[f64; D]; D] = std::array::from_fn(|i| std::array::from_fn(|j| gram[[i, j]]));
        let b: [f64; D] = std::array::from_fn(|i| rhs[i]);
        let x_mean: [f64; D] = std::array::from_fn(|i| x_mean[i]);
        let coef = cholesky_solve(a, b).ok_or(RidgeError::Singular)?;
        let intercept = y_mean - coef.iter().zip(&x_mean).map(|(w, m)| w * m).sum::<f64>();
        Ok(RidgeFit { coef, intercept })
    }
}

/// A fitted linear model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RidgeFit<const D: usize> {
    /// One coefficient per feature.
    pub coef: [f64; D],
    /// The unpenalised intercept.
    pub intercept: f64,
}

impl<const D: usize> RidgeFit<D> {
    /// `x·coef + intercept`.
    pub fn predict(&self, x: &[f64; D]) -> f64 {
        self.intercept + self.coef.iter().zip(x).map(|(w, v)| w * v).sum::<f64>()
    }
}

/// Solves `A z = b` for symmetric positive definite `A`, of which only the lower triangle is
/// read, by the Cholesky factorisation `A = LLᵀ`; `None` if a pivot is not clearly positive
/// (below `1e-12` times the largest diagonal entry).
fn cholesky_solve<const D: usize>(mut a: [[f64; D]; D], mut b: [f64; D]) -> Option<[f64; D]> {
    let scale = (0..D).map(|i| a[i][i]).fold(0.0_f64, f64::max);
    let tiny = 1e-12 * scale;
    for j in 0..D {
        let pivot = a[j][j] - (0..j).map(|k| a[j][k] * a[j][k]).sum::<f64>();
        if pivot.is_nan() || pivot <= tiny {
            return None;
        }
        let l_jj = pivot.sqrt();
        a[j][j] = l_jj;
        for i in j + 1..D {
            let dot: f64 = (0..j).map(|k| a[i][k] * a[j][k]).sum();
            a[i][j] = (a[i][j] - dot) / l_jj;
        }
    }
    // L y = b, then Lᵀ z = y.
    for i in 0..D {
        let dot: f64 = (0..i).map(|k| a[i][k] * b[k]).sum();
        b[i] = (b[i] - dot) / a[i][i];
    }
    for i in (0..D).rev() {
        let dot: f64 = (i + 1..D).map(|k| a[k][i] * b[k]).sum();
        b[i] = (b[i] - dot) / a[i][i];
    }
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_validated() {
        assert_eq!(Ridge::new(-1.0).unwrap_err().name, "lambda");
        assert_eq!(Ridge::new(f64::INFINITY).unwrap_err().name, "lambda");
        let r = Ridge::new(1.0).unwrap();
        assert_eq!(r.fit::<1>(&[], &[]), Err(RidgeError::Empty));
        assert!(matches!(
            r.fit(&[[1.0]], &[1.0, 2.0]),
            Err(RidgeError::LengthMismatch { .. })
        ));
        assert_eq!(
            r.fit(&[[1.0], [f64::NAN]], &[1.0, 2.0]),
            Err(RidgeError::NotFinite { row: 1 })
        );
    }

    #[test]
    fn collinear_features_need_a_penalty() {
        let x = [[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]];
        let y = [1.0, 2.0, 3.0];
        assert_eq!(
            Ridge::new(0.0).unwrap().fit(&x, &y),
            Err(RidgeError::Singular)
        );
        let fit = Ridge::new(0.1).unwrap().fit(&x, &y).unwrap();
        // The penalty splits the weight between the twins in the 1:2 ratio of their scales.
        assert!((fit.coef[1] - 2.0 * fit.coef[0]).abs() < 1e-12);
    }

    #[test]
    fn one_row_predicts_its_target() {
        let fit = Ridge::new(1.0).unwrap().fit(&[[4.0, 5.0]], &[7.0]).unwrap();
        assert_eq!(fit.coef, [0.0, 0.0]);
        assert_eq!(fit.predict(&[100.0, -3.0]), 7.0);
    }
}
