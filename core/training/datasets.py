"""Toy two-dimensional datasets, the playground of a small MLP.

Every generator has the same shape,

    points, labels = moons(n, noise, rng)

where `points` is a list of `(x1, x2)` float pairs, `labels` a list of the same
length holding -1.0 or +1.0, and `rng` a `random.Random`. Nothing here touches
the global `random` state, so the same seed gives the same points on every run
and every machine. `noise` is always the standard deviation of Gaussian jitter
added to each coordinate, in data units.

Two datasets are regression problems instead (`plane`, `multi_gaussian`, in
REGRESSION_DATASETS): the same points, but the label is a number from -1 to +1
to predict, and the loss is the mean squared error.

The class labels are -1/+1 rather than 0/1 because the hinge loss of micrograd's
demo, `relu(1 - y * score)`, wants them that way: a point is classified right
when `y * score > 0`.

`moons` follows scikit-learn's `make_moons` construction (two interleaving half
circles, shuffled, then jittered), so micrograd's demo (`make_moons(n_samples=100,
noise=0.1)`) has the same shape here -- though not the same points, since
numpy's random stream is not Python's.

`parse_csv` reads user data, `x1,x2,label` a line, and refuses the whole file
(naming the line) rather than importing part of it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

# a point (x1, x2); a dataset is its points and their labels (or regression targets)
Point = tuple[float, float]
Dataset = tuple[list[Point], list[float]]

# -----------------------------------------------------------------------------
# helpers


def _jitter(rng: random.Random, noise: float) -> float:
    """One Gaussian sample of standard deviation `noise` (0 when noise is 0)."""
    return rng.gauss(0.0, noise) if noise > 0.0 else 0.0


def _shuffled(points: Sequence[Point], labels: Sequence[float], rng: random.Random) -> Dataset:
    """points and labels in one random order (the pairs stay together)."""
    order = list(range(len(points)))
    rng.shuffle(order)
    return [points[i] for i in order], [labels[i] for i in order]


def _check_args(n: int, noise: float) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"the number of points must be a whole number >= 0, got {n!r}")
    if not (isinstance(noise, (int, float)) and math.isfinite(noise) and noise >= 0):
        raise ValueError(f"noise must be a finite number >= 0, got {noise!r}")


def _linspace(start: float, stop: float, count: int, endpoint: bool = True) -> list[float]:
    """`count` evenly spaced floats from start to stop, like numpy.linspace."""
    if count == 1:
        return [float(start)]
    steps = count - 1 if endpoint else count
    return [start + (stop - start) * i / steps for i in range(count)]


# -----------------------------------------------------------------------------
# the datasets


def moons(n: int, noise: float, rng: random.Random) -> Dataset:
    """Two interleaving half circles (scikit-learn's make_moons).

    The upper moon (label -1) is the half circle of radius 1 around (0, 0); the
    lower one (label +1) is the same arc flipped and shifted to (1, 0.5), so
    the two hook into each other and no straight line separates them.
    """
    _check_args(n, noise)
    n_out = n // 2
    n_in = n - n_out
    points = [(math.cos(t), math.sin(t)) for t in _linspace(0.0, math.pi, n_out)]
    points += [(1.0 - math.cos(t), 0.5 - math.sin(t)) for t in _linspace(0.0, math.pi, n_in)]
    labels = [-1.0] * n_out + [1.0] * n_in
    points, labels = _shuffled(points, labels, rng)
    # jitter after shuffling, as scikit-learn does
    points = [(x + _jitter(rng, noise), y + _jitter(rng, noise)) for x, y in points]
    return points, labels


def circles(n: int, noise: float, rng: random.Random, factor: float = 0.5) -> Dataset:
    """A small circle (label +1) inside a big one (label -1) (scikit-learn's make_circles).

    The outer circle has radius 1, the inner one radius `factor`. No line
    separates them, but the features x1^2 and x2^2 do: the radius is the answer.
    """
    _check_args(n, noise)
    n_out = n // 2
    n_in = n - n_out
    # endpoint=False: 0 and 2*pi are the same point, it should appear once
    points = [(math.cos(t), math.sin(t)) for t in _linspace(0.0, 2 * math.pi, n_out, endpoint=False)]
    points += [(factor * math.cos(t), factor * math.sin(t)) for t in _linspace(0.0, 2 * math.pi, n_in, endpoint=False)]
    labels = [-1.0] * n_out + [1.0] * n_in
    points, labels = _shuffled(points, labels, rng)
    points = [(x + _jitter(rng, noise), y + _jitter(rng, noise)) for x, y in points]
    return points, labels


def xor(n: int, noise: float, rng: random.Random) -> Dataset:
    """Points uniform in the square [-1, 1]^2, labelled by the sign of x1 * x2.

    The four quadrants alternate like a chessboard: the classic problem a
    single neuron cannot solve and one hidden layer can. The label is decided
    before the jitter, so with noise some points stray across an axis, and the
    points are kept a little (0.05) away from the axes so that noise 0 gives a
    clean gap.
    """
    _check_args(n, noise)
    points, labels = [], []
    for _ in range(n):
        x = rng.uniform(0.05, 1.0) * rng.choice((-1.0, 1.0))
        y = rng.uniform(0.05, 1.0) * rng.choice((-1.0, 1.0))
        labels.append(1.0 if x * y > 0 else -1.0)
        points.append((x + _jitter(rng, noise), y + _jitter(rng, noise)))
    return points, labels


def spiral(n: int, noise: float, rng: random.Random, turns: float = 1.75) -> Dataset:
    """Two spiral arms winding around each other from the origin out to radius 1.

    Arm +1 and arm -1 are the same curve, the second rotated by half a turn.
    `turns` is how many times each arm goes around; the more turns, the harder
    the problem (TensorFlow Playground's spiral has 1.75).
    """
    _check_args(n, noise)
    n_neg = n // 2
    n_pos = n - n_neg
    points, labels = [], []
    for count, label, phase in ((n_pos, 1.0, 0.0), (n_neg, -1.0, math.pi)):
        for i in range(count):
            r = i / count
            t = 2 * math.pi * turns * r + phase
            points.append((r * math.sin(t), r * math.cos(t)))
            labels.append(label)
    points, labels = _shuffled(points, labels, rng)
    points = [(x + _jitter(rng, noise), y + _jitter(rng, noise)) for x, y in points]
    return points, labels


def blobs(n: int, noise: float, rng: random.Random, spread: float = 0.3) -> Dataset:
    """Two round Gaussian clouds, centred at (-0.7, -0.7) (label -1) and (0.7, 0.7) (label +1).

    A cloud's standard deviation is `spread + noise`, so noise 0 still gives
    two clouds (not two points); at noise ~0.5 they start to overlap. The one
    linearly separable dataset here: a single linear neuron solves it.
    """
    _check_args(n, noise)
    n_neg = n // 2
    n_pos = n - n_neg
    sigma = spread + noise
    points, labels = [], []
    for count, label, centre in ((n_neg, -1.0, -0.7), (n_pos, 1.0, 0.7)):
        for _ in range(count):
            points.append((centre + rng.gauss(0.0, sigma), centre + rng.gauss(0.0, sigma)))
            labels.append(label)
    return _shuffled(points, labels, rng)


# -----------------------------------------------------------------------------
# regression: a number to predict at every point (TensorFlow Playground's two)


def plane(n: int, noise: float, rng: random.Random) -> Dataset:
    """Points uniform in [-1, 1]^2, each with the target (x1 + x2) / 2, from -1 to +1.

    The simplest regression: the target is a tilted plane, which one linear
    neuron fits exactly. As in the Playground, noise moves the place where the
    target is read, not the point: with noise the targets scatter around the plane
    (kept within -1..+1).
    """
    _check_args(n, noise)
    points, targets = [], []
    for _ in range(n):
        x, y = rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)
        points.append((x, y))
        target = (x + _jitter(rng, noise) + y + _jitter(rng, noise)) / 2.0
        targets.append(min(1.0, max(-1.0, target)))
    return points, targets


# Six bumps, (centre x, centre y, sign): the Playground's, scaled from its [-6, 6]^2 to [-1, 1]^2.
GAUSSIANS = (
    (-2 / 3, 5 / 12, 1.0),
    (0.0, 5 / 12, -1.0),
    (2 / 3, 5 / 12, 1.0),
    (-2 / 3, -5 / 12, -1.0),
    (0.0, -5 / 12, 1.0),
    (2 / 3, -5 / 12, -1.0),
)


def _bump_target(x: float, y: float, radius: float = 1 / 3) -> float:
    """The strongest bump at (x, y): sign * (1 - distance / radius), 0 beyond `radius`."""
    target = 0.0
    for cx, cy, sign in GAUSSIANS:
        height = sign * max(0.0, 1.0 - math.hypot(x - cx, y - cy) / radius)
        if abs(height) > abs(target):
            target = height
    return target


def multi_gaussian(n: int, noise: float, rng: random.Random) -> Dataset:
    """Points uniform in [-1, 1]^2 over six bumps, three up (+1) and three down (-1).

    The target is the height of the strongest bump at the point, falling
    linearly from +-1 at a bump's centre to 0 at a distance of 1/3 (the
    Playground's "multi-gaussian"). Noise jitters where the height is read.
    """
    _check_args(n, noise)
    points, targets = [], []
    for _ in range(n):
        x, y = rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)
        points.append((x, y))
        targets.append(_bump_target(x + _jitter(rng, noise), y + _jitter(rng, noise)))
    return points, targets


# The names the app offers and TrainConfig accepts, in menu order.
DATASETS: dict[str, Callable[[int, float, random.Random], Dataset]] = {
    "moons": moons,
    "circles": circles,
    "xor": xor,
    "spiral": spiral,
    "blobs": blobs,
    "plane": plane,
    "multi-gaussian": multi_gaussian,
}

# The datasets whose labels are numbers to predict (the mse loss), not classes -1/+1.
REGRESSION_DATASETS = ("plane", "multi-gaussian")


def make_dataset(name: str, n: int, noise: float, seed: int) -> Dataset:
    """Generate dataset `name` with its own `random.Random(seed)`."""
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; choose one of {', '.join(DATASETS)}")
    return DATASETS[name](n, noise, random.Random(seed))


# -----------------------------------------------------------------------------
# splitting


def train_test_split(
    points: Sequence[Point], labels: Sequence[float], test_ratio: float, rng: random.Random
) -> tuple[list[Point], list[float], list[Point], list[float]]:
    """Shuffle, then hold out round(n * test_ratio) points for testing.

    Returns (train_points, train_labels, test_points, test_labels). At least
    one point always stays in the training set, so a tiny dataset with a big
    ratio still trains.
    """
    if len(points) != len(labels):
        raise ValueError(f"{len(points)} points but {len(labels)} labels")
    if not (0.0 <= test_ratio < 1.0):
        raise ValueError(f"test_ratio must be in [0, 1), got {test_ratio!r}")
    points, labels = _shuffled(list(points), list(labels), rng)
    n_test = min(int(round(len(points) * test_ratio)), max(len(points) - 1, 0))
    n_train = len(points) - n_test
    return points[:n_train], labels[:n_train], points[n_train:], labels[n_train:]


# -----------------------------------------------------------------------------
# CSV import


def parse_csv(text: str) -> Dataset:
    """Read `x1,x2,label` lines into (points, labels) with labels -1/+1.

    * An optional header line comes first (a first row whose fields are not all
      numbers, e.g. `x1,x2,label`).
    * Blank lines and lines starting with `#` are skipped.
    * Labels are 0/1 or -1/+1 (0 and -1 both mean the negative class), but one
      file uses one convention: 0 and -1 together are an error.

    Any bad row raises ValueError naming its line number and the problem, and
    nothing at all is imported: half a dataset is worse than an error message.
    """
    points, labels = [], []
    negative_seen = None  # (text, line number) of the first 0 or -1 label
    header_allowed = True
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        fields = [field.strip() for field in stripped.split(",")]
        values: list[float | None] = []
        for field in fields:
            try:
                values.append(float(field))
            except ValueError:
                values.append(None)
        if header_allowed and None in values:
            header_allowed = False
            continue  # the header
        header_allowed = False
        if len(fields) != 3:
            raise ValueError(
                f"line {number}: expected 3 comma-separated values (x1,x2,label), got {len(fields)}: {stripped!r}"
            )
        for name, field, value in zip(("x1", "x2", "label"), fields, values):
            if value is None:
                raise ValueError(f"line {number}: {name} is not a number: {field!r}")
            if not math.isfinite(value):
                raise ValueError(f"line {number}: {name} must be finite, got {field!r}")
        x1, x2, label = [v for v in values if v is not None]  # all three, checked above
        if label not in (-1.0, 0.0, 1.0):
            raise ValueError(f"line {number}: the label must be 0 or 1 (or -1 or 1), got {fields[2]!r}")
        if label <= 0.0:
            if negative_seen is None:
                negative_seen = (label, number)
            elif negative_seen[0] != label:
                raise ValueError(
                    f"line {number}: label {fields[2]!r} mixes the -1/1 and 0/1 "
                    f"conventions (line {negative_seen[1]} used {negative_seen[0]:g})"
                )
        points.append((x1, x2))
        labels.append(1.0 if label > 0.0 else -1.0)
    if not points:
        raise ValueError("no data rows found: expected lines of x1,x2,label")
    return points, labels
