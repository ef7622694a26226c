"""`make_moons` and `make_blobs` as scikit-learn makes them.

make_moons: two interleaving half circles. The outer moon is (cos t, sin t) for t
evenly spaced over [0, π], the inner one (1 − cos t, 1 − sin t − 0.5); the points
of each moon are stacked (outer first), labelled 0 and 1, shuffled together, and
Gaussian noise of standard deviation `noise` is added to both coordinates. The
random numbers come from numpy's global generator (`np.random.seed(1337)` in the
demo), drawn in scikit-learn's order: the shuffle's permutation, then the noise.

make_blobs: `centers` Gaussian blobs of standard deviation `cluster_std`, their
centres uniform in `center_box`.
"""

import numpy as np

__all__ = ["make_blobs", "make_moons"]


def _generator(random_state):
    if random_state is None:
        return np.random.mtrand._rand
    if isinstance(random_state, (int, np.integer)):
        return np.random.RandomState(random_state)
    return random_state


def make_moons(n_samples=100, *, shuffle=True, noise=None, random_state=None):
    if isinstance(n_samples, (int, np.integer)):
        n_out, n_in = n_samples // 2, n_samples - n_samples // 2
    else:
        n_out, n_in = n_samples
    rng = _generator(random_state)
    outer_x, outer_y = np.cos(np.linspace(0, np.pi, n_out)), np.sin(np.linspace(0, np.pi, n_out))
    inner_x, inner_y = 1 - np.cos(np.linspace(0, np.pi, n_in)), 1 - np.sin(np.linspace(0, np.pi, n_in)) - 0.5
    X = np.vstack([np.append(outer_x, inner_x), np.append(outer_y, inner_y)]).T
    y = np.hstack([np.zeros(n_out, dtype=np.intp), np.ones(n_in, dtype=np.intp)])
    if shuffle:
        order = rng.permutation(len(y))
        X, y = X[order], y[order]
    if noise is not None:
        X = X + rng.normal(scale=noise, size=X.shape)
    return X, y


def make_blobs(n_samples=100, n_features=2, *, centers=None, cluster_std=1.0, center_box=(-10.0, 10.0),
               shuffle=True, random_state=None, return_centers=False):  # fmt: skip
    rng = _generator(random_state)
    if centers is None:
        centers = 3
    if isinstance(centers, (int, np.integer)):
        centers = rng.uniform(center_box[0], center_box[1], size=(centers, n_features))
    centers = np.asarray(centers, dtype=float)
    k = len(centers)
    counts = [n_samples // k + (1 if i < n_samples % k else 0) for i in range(k)]
    stds = np.full(k, cluster_std) if np.isscalar(cluster_std) else np.asarray(cluster_std)
    X = np.vstack([rng.normal(loc=centers[i], scale=stds[i], size=(counts[i], centers.shape[1])) for i in range(k)])
    y = np.hstack([np.full(counts[i], i, dtype=np.intp) for i in range(k)])
    if shuffle:
        order = rng.permutation(n_samples)
        X, y = X[order], y[order]
    return (X, y, centers) if return_centers else (X, y)
