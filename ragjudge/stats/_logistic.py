"""Weighted logistic regression with an L2 pull toward prior weights: the one logistic fit that
the offline judge's weights and compile's Platt calibration share."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["calibrated", "fit_logistic"]

FloatArray = npt.NDArray[np.float64]


def calibrated(score: float, calibration: Sequence[float] | None) -> float:
    """`1 / (1 + exp(-(a * score + b)))` for a Platt calibration `(a, b)`; the score itself if
    None.

    Example:
        >>> calibrated(0.5, [2.0, -1.0])
        0.5
    """
    if calibration is None or math.isnan(score):
        return score
    a, b = calibration
    return 1.0 / (1.0 + math.exp(-(a * score + b)))


def fit_logistic(
    x: FloatArray,
    y: FloatArray,
    sw: FloatArray,
    w0: FloatArray,
    b0: float,
    lam: float,
    *,
    signs: Sequence[int] | None = None,
) -> tuple[FloatArray, float]:
    """L2-regularized (toward the prior weights) weighted logistic regression.

    Features are standardized for the fit; the returned weights are on the raw scale.

    Args:
        x: Features, one row per example.
        y: 0/1 labels.
        sw: Sample weights (normalized here).
        w0: Prior weights on the raw scale (the penalty pulls toward them).
        b0: Prior bias.
        lam: L2 strength on the standardized weights' distance from the prior.
        signs: Per feature, the sign its weight must have: 1 (at least 0), -1 (at most 0) or
            0 (free); None: all free. A feature that is evidence for (or against) the label
            can then be weighed down to 0 by the data but never turned around.

    Returns:
        `(weights, bias)` on the raw scale.
    """
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    xs = (x - mean) / scale
    prior = w0 * scale
    b_prior = b0 + float(np.dot(w0, mean))
    sw = sw / sw.sum()

    def loss(theta: FloatArray) -> tuple[float, FloatArray]:
        w, b = theta[:-1], theta[-1]
        z = xs @ w + b
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
        ll = np.logaddexp(0.0, z) - y * z
        diff = w - prior
        value = float(np.dot(sw, ll)) + 0.5 * lam * float(np.dot(diff, diff))
        g = sw * (p - y)
        grad = np.append(xs.T @ g + lam * diff, g.sum())
        return value, grad

    bounds = [_bound(int(s)) for s in signs] if signs is not None else [(None, None)] * x.shape[1]
    if len(bounds) != x.shape[1]:
        raise ValueError(f"{len(bounds)} signs for {x.shape[1]} features")
    bounds.append((None, None))  # the bias
    lower = np.array([-np.inf if lo is None else lo for lo, _ in bounds])
    upper = np.array([np.inf if hi is None else hi for _, hi in bounds])
    theta0 = np.clip(np.append(prior, b_prior), lower, upper)
    from scipy.optimize import minimize  # lazy: judging needs no SciPy (0.3 s of import)

    result = minimize(
        loss, theta0, jac=True, method="L-BFGS-B", bounds=bounds, options={"maxiter": 500}
    )
    w_std, b_std = result.x[:-1], float(result.x[-1])
    w_raw = w_std / scale
    return w_raw, b_std - float(np.dot(w_raw, mean))


def _bound(sign: int) -> tuple[float | None, float | None]:
    if sign > 0:
        return (0.0, None)
    if sign < 0:
        return (None, 0.0)
    return (None, None)
