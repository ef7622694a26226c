"""The layered layout: left-to-right edges, no overlapping boxes, fewer crossings, determinism."""

import itertools
import json
import os
import random
import subprocess
import sys

import pytest

from core.document.layout import Dummy, count_crossings, layered_layout, positions_pile_up, sugiyama

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def random_dag(n, seed, window=10, p_leaf=0.1):
    """An expression-like DAG: each node is a leaf or an op on 1-2 recent nodes."""
    rng = random.Random(seed)
    nodes = [f"n{i}" for i in range(n)]
    edges = []
    for i in range(1, n):
        if rng.random() < p_leaf:
            continue
        for _ in range(rng.choice((1, 2, 2))):
            edges.append((nodes[rng.randrange(max(0, i - window), i)], nodes[i]))
    return nodes, edges


def random_sizes(nodes, seed):
    rng = random.Random(seed)
    return {v: (rng.choice((30.0, 60.0, 120.0)), rng.choice((20.0, 40.0, 90.0))) for v in nodes}


def assert_no_overlap(pos, sizes, gap):
    boxes = [
        (x - sizes[v][0] / 2, y - sizes[v][1] / 2, x + sizes[v][0] / 2, y + sizes[v][1] / 2)
        for v, (x, y) in pos.items()
    ]
    for a, b in itertools.combinations(boxes, 2):
        apart = a[2] <= b[0] or b[2] <= a[0] or a[3] + gap <= b[1] + 1e-9 or b[3] + gap <= a[1] + 1e-9
        assert apart, (a, b)


def assert_left_to_right(pos, edges, sizes=None, gap=0.0):
    for src, dst in edges:
        w_src = sizes[src][0] if sizes else 0.0
        w_dst = sizes[dst][0] if sizes else 0.0
        assert pos[src][0] + w_src / 2 + gap <= pos[dst][0] - w_dst / 2 + 1e-9, (src, dst)


def brute_force_crossings(layers, edges):
    where = {v: (i, j) for i, lay in enumerate(layers) for j, v in enumerate(lay)}
    segs = [(where[a], where[b]) for a, b in edges]
    count = 0
    for ((i1, a1), (k1, b1)), ((i2, a2), (k2, b2)) in itertools.combinations(segs, 2):
        if i1 == i2 and k1 == k2 == i1 + 1 and (a1 - a2) * (b1 - b2) < 0:
            count += 1
    return count


# -- the shape of a computation graph ------------------------------------------

MICROGRAD = (
    ["a", "b", "c", "e", "d", "f", "L"],
    [("a", "e"), ("b", "e"), ("e", "d"), ("c", "d"), ("d", "L"), ("f", "L")],
)


def test_micrograd_example_flows_left_to_right():
    nodes, edges = MICROGRAD
    pos = layered_layout(nodes, edges)
    assert list(pos) == nodes
    assert_left_to_right(pos, edges)
    column = sorted({x for x, _ in pos.values()})
    # a, b | e, c | d, f | L : each leaf sits just before the node that uses it
    assert [column.index(pos[v][0]) for v in nodes] == [0, 0, 1, 1, 2, 2, 3]


def test_leaf_is_pulled_next_to_its_use():
    nodes = ["x", "p", "q", "w", "r"]
    edges = [("x", "p"), ("p", "q"), ("q", "r"), ("w", "r")]
    pos = layered_layout(nodes, edges)
    assert pos["w"][0] == pos["q"][0]


def test_chain_is_straight():
    nodes = ["a", "b", "c", "d"]
    pos = layered_layout(nodes, list(zip(nodes, nodes[1:])))
    assert len({y for _, y in pos.values()}) == 1
    assert [x for x, _ in pos.values()] == sorted(x for x, _ in pos.values())


def test_long_edge_gets_bend_points_in_the_skipped_columns():
    lay = sugiyama(["a", "b", "c"], [("a", "b"), ("b", "c"), ("a", "c")])
    assert lay.layers[1] == ["b", Dummy("a", "c", 0)] or lay.layers[1] == [Dummy("a", "c", 0), "b"]
    (x_in, y_in), (x_out, y_out) = lay.routes[("a", "c")]
    assert (x_in + x_out) / 2 == lay.positions["b"][0] and y_in == y_out  # level across b's column
    column = {v: i for i, layer in enumerate(lay.layers) for v in layer}
    assert all(column[dst] == column[src] + 1 for src, dst in lay.edges)


# -- short edges ---------------------------------------------------------------


def mlp_loss(n_samples, n_in=2, sizes=(4, 4, 1)):
    """The scalar ops of sum((MLP(x) - y)^2) over n_samples, the samples sharing
    the weights as in the trainer's loss graph; nodes in topological order."""
    nodes, edges = [], []

    def op(*args):
        nodes.append(f"n{len(nodes)}")
        edges.extend((a, nodes[-1]) for a in args)
        return nodes[-1]

    params, dims = [], n_in
    for size in sizes:
        params.append([([op() for _ in range(dims)], op()) for _ in range(size)])
        dims = size
    loss = None
    for _ in range(n_samples):
        xs = [op() for _ in range(n_in)]
        for k, layer in enumerate(params):
            outs = []
            for ws, b in layer:
                act = None
                for w, x in zip(ws, xs):
                    prod = op(w, x)
                    act = prod if act is None else op(act, prod)
                act = op(act, b)
                outs.append(op(act) if k < len(params) - 1 else act)
            xs = outs
        diff = op(xs[0], op())
        square = op(diff, diff)
        loss = square if loss is None else op(loss, square)
    return nodes, edges


def dummies(lay, nodes):
    return sum(len(layer) for layer in lay.layers) - len(nodes)


def longest_path_dummies(nodes, edges):
    """Dummies of the plain longest-path layering (nodes in topological order)."""
    preds = {v: [] for v in nodes}
    for src, dst in set(edges):
        preds[dst].append(src)
    layer = {}
    for v in nodes:
        layer[v] = max((layer[u] + 1 for u in preds[v]), default=0)
    return sum(layer[dst] - layer[src] - 1 for src, dst in set(edges))


# the fewest dummies any layering can have (what network simplex finds), solved
# as a linear program with scipy by bench/bench_layout.py's optimal_dummies
@pytest.mark.parametrize(
    "graph, fewest",
    [
        pytest.param(lambda: random_dag(1000, seed=0), 457, id="strands-1k"),  # the bench's
        pytest.param(lambda: random_dag(1000, seed=5), 465, id="strands-1k-seed5"),
        pytest.param(lambda: mlp_loss(1), 6, id="mlp-1-sample"),  # pulling right is enough
        pytest.param(lambda: mlp_loss(3), 19, id="mlp-3-samples"),  # shared weights: blocks slide
    ],
)
def test_layering_is_close_to_the_fewest_dummies(graph, fewest):
    nodes, edges = graph()
    assert fewest <= dummies(sugiyama(nodes, edges), nodes) <= 1.2 * fewest


@pytest.mark.parametrize("seed", range(6))
def test_never_more_dummies_than_longest_path(seed):
    rng = random.Random(seed)
    nodes, edges = random_dag(
        rng.randint(2, 400), seed, window=rng.choice((2, 10, 50)), p_leaf=rng.choice((0.0, 0.1, 0.4))
    )
    edges += edges[:3]  # repeated edges share one route
    assert dummies(sugiyama(nodes, edges), nodes) <= longest_path_dummies(nodes, edges)


def test_strand_slides_next_to_its_use():
    # leaves x, y start a strand that joins the long chain only at its end
    chain = [f"c{i}" for i in range(6)]
    nodes = chain + ["x", "y", "s1", "s2", "out"]
    edges = list(zip(chain, chain[1:])) + [
        ("x", "s1"),
        ("y", "s1"),
        ("s1", "s2"),
        ("x", "s2"),
        ("s2", "out"),
        ("c5", "out"),
    ]
    lay = sugiyama(nodes, edges)
    assert lay.positions["s2"][0] == lay.positions["c5"][0]
    assert dummies(lay, nodes) == 1  # x -> s2 skips the column of s1, as it must


# -- edge cases ----------------------------------------------------------------


def test_empty_and_single_node():
    assert layered_layout([], []) == {}
    assert layered_layout(["n1"], [], sizes={"n1": (80, 40)}) == {"n1": (40.0, 20.0)}


def test_positions_that_pile_up_ask_for_a_layout():
    assert positions_pile_up([(0.0, 0.0)] * 5169)  # a trace: every node at one spot
    assert positions_pile_up([(0, 0)] * 5 + [(9, 9)])
    assert not positions_pile_up([(0, 0), (1, 0), (2, 0), (3, 0)])
    assert not positions_pile_up([(0, 0), (0, 0), (1, 0), (2, 0)])  # one shared spot is a user's
    assert not positions_pile_up([]) and not positions_pile_up([(0, 0)])


def test_disconnected_components():
    nodes = ["a", "b", "c", "x", "y", "lonely"]
    edges = [("a", "b"), ("b", "c"), ("x", "y")]
    sizes = {v: (50.0, 30.0) for v in nodes}
    pos = layered_layout(nodes, edges, sizes=sizes, node_gap=10.0, layer_gap=20.0)
    assert set(pos) == set(nodes)
    assert_no_overlap(pos, sizes, 10.0)
    assert_left_to_right(pos, edges, sizes, 20.0)


def test_duplicate_edges_are_multi_edges():
    # a * a: two edges a -> m, kept (and counted) twice, laid out like one
    lay = sugiyama(["a", "m", "b"], [("a", "m"), ("a", "m"), ("m", "b")])
    assert lay.edges.count(("a", "m")) == 2
    assert lay.positions["a"][0] < lay.positions["m"][0] < lay.positions["b"][0]
    assert layered_layout(["a", "m"], [("a", "m")] * 2) == layered_layout(["a", "m"], [("a", "m")])
    # each copy crosses the other edge
    assert count_crossings([["a", "b"], ["c", "d"]], [("a", "d"), ("a", "d"), ("b", "c")]) == 2


def test_cycle_raises_naming_a_node_on_it():
    nodes = ["in", "a", "b", "c", "out"]
    edges = [("in", "a"), ("a", "b"), ("b", "c"), ("c", "a"), ("c", "out")]
    with pytest.raises(ValueError, match="cycle") as err:
        layered_layout(nodes, edges)
    assert any(repr(v) in str(err.value) for v in ("a", "b", "c"))
    assert "'in'" not in str(err.value) and "'out'" not in str(err.value)
    with pytest.raises(ValueError, match="'s'"):
        layered_layout(["s"], [("s", "s")])


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="'ghost'"):
        layered_layout(["a"], [("a", "ghost")])
    with pytest.raises(ValueError, match="listed twice"):
        layered_layout(["a", "a"], [])


# -- boxes, gaps and determinism -----------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_boxes_never_overlap_and_edges_point_right(seed):
    nodes, edges = random_dag(150, seed)
    sizes = random_sizes(nodes, seed)
    pos = layered_layout(nodes, edges, sizes=sizes, node_gap=12.0, layer_gap=50.0)
    assert_no_overlap(pos, sizes, 12.0)
    assert_left_to_right(pos, edges, sizes, 50.0)


def test_same_input_same_output():
    nodes, edges = random_dag(300, seed=7)
    sizes = random_sizes(nodes, 7)
    first = sugiyama(nodes, edges, sizes=sizes)
    second = sugiyama(nodes, edges, sizes=sizes)
    assert first == second


def test_output_does_not_depend_on_hash_seed():
    script = (
        "import json, random\n"
        "from tests.core.document.test_layout import random_dag\n"
        "from core.document.layout import layered_layout\n"
        "nodes, edges = random_dag(200, seed=3)\n"
        "print(json.dumps(layered_layout(nodes, edges)))\n"
    )
    outputs = set()
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        run = subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, check=True
        )
        outputs.add(run.stdout)
    assert len(outputs) == 1
    assert len(json.loads(outputs.pop())) == 200


# -- crossings -----------------------------------------------------------------


def test_reduction_untwists_a_known_optimum():
    # s_i -> t_(4-i): every pair crosses in the given order (10), none once flipped
    nodes = [f"s{i}" for i in range(5)] + [f"t{i}" for i in range(5)]
    edges = [(f"s{i}", f"t{4 - i}") for i in range(5)]
    lay = sugiyama(nodes, edges)
    assert (lay.crossings_before, lay.crossings_after) == (10, 0)
    assert count_crossings(lay.positions, edges) == 0
    assert count_crossings([nodes[:5], nodes[5:]], edges) == 10


def test_complete_bipartite_crossings_are_fixed():
    # K(3,3) has C(3,2)^2 = 9 crossings in every order
    top, bottom = ["a", "b", "c"], ["x", "y", "z"]
    edges = [(u, v) for u in top for v in bottom]
    assert count_crossings([top, bottom], edges) == 9
    assert count_crossings([top, bottom[::-1]], edges) == 9
    assert sugiyama(top + bottom, edges).crossings_after == 9


@pytest.mark.parametrize("seed", range(3))
def test_reduction_beats_generation_order_on_a_random_dag(seed):
    nodes, edges = random_dag(400, seed)
    lay = sugiyama(nodes, edges)
    assert lay.crossings_before == count_crossings(sugiyama(nodes, edges, sweeps=0).layers, lay.edges)
    assert lay.crossings_after == count_crossings(lay.layers, lay.edges)
    assert lay.crossings_after < lay.crossings_before / 2


@pytest.mark.parametrize("seed", range(5))
def test_count_crossings_matches_brute_force(seed):
    rng = random.Random(seed)
    layers = [[f"L{i}v{j}" for j in range(rng.randint(1, 7))] for i in range(4)]
    edges = [(rng.choice(a), rng.choice(b)) for a, b in zip(layers, layers[1:]) for _ in range(rng.randint(0, 12))]
    assert count_crossings(layers, edges) == brute_force_crossings(layers, edges)
    # the same drawing given as positions, and edges given right to left
    pos = {v: (10.0 * i, -3.0 * j) for i, lay in enumerate(layers) for j, v in enumerate(lay)}
    assert count_crossings(pos, [(b, a) for a, b in edges]) == count_crossings([lay[::-1] for lay in layers], edges)


def test_two_thousand_node_random_dag():
    nodes, edges = random_dag(2000, seed=11, window=30)
    lay = sugiyama(nodes, edges)
    assert len(lay.positions) == 2000
    assert_left_to_right(lay.positions, edges)
    assert lay.crossings_after <= lay.crossings_before
    column = {v: i for i, layer in enumerate(lay.layers) for v in layer}
    assert all(column[dst] == column[src] + 1 for src, dst in lay.edges)


def test_boxes_overlap_names_the_first_two_colliding_nodes():
    from core.document.layout import boxes_overlap

    sizes = {"a": (100.0, 60.0), "b": (100.0, 60.0), "c": (100.0, 60.0)}
    apart = {"a": (0.0, 0.0), "b": (150.0, 0.0), "c": (0.0, 80.0)}
    assert boxes_overlap(apart, sizes) is None
    # saved ~100 px apart, written when nodes were 30 px tall and wide records: now they collide
    assert boxes_overlap({"a": (0.0, 0.0), "b": (90.0, 10.0), "c": (400.0, 0.0)}, sizes) == ("a", "b")
    assert boxes_overlap({"a": (0.0, 0.0), "b": (0.0, 59.0), "c": (0.0, 200.0)}, sizes) == ("a", "b")
    assert boxes_overlap({}, {}) is None


def test_a_laid_out_graph_never_overlaps():
    from core.document.layout import boxes_overlap

    nodes, edges = random_dag(120, seed=5)
    sizes = {v: (60.0 + (i % 5) * 20, 62.0) for i, v in enumerate(nodes)}
    pos = layered_layout(nodes, edges, sizes=sizes)
    assert boxes_overlap(pos, sizes) is None


# -- networkx's generations are the layering's start ---------------------------


def kahn_generations(ids, pairs):
    """The previous hand-written Kahn's algorithm (commit cf73ed4), as the oracle."""
    preds, succs = [[] for _ in ids], [[] for _ in ids]
    for u, v in pairs:
        succs[u].append(v)
        preds[v].append(u)
    missing = [len(p) for p in preds]
    generation = [v for v in range(len(ids)) if not missing[v]]
    order, layer, k = [], [0] * len(ids), 0
    while generation:
        later = []
        for v in generation:
            layer[v] = k
            order.append(v)
            for w in succs[v]:
                missing[w] -= 1
                if not missing[w]:
                    later.append(w)
        generation, k = later, k + 1
    return order, layer


def corpus_graphs():
    from tests.core.document.graph_corpus import corpus

    graphs = [(name, list(doc.nodes), [(e.src, e.dst) for e in doc.edges]) for name, doc in corpus()]
    graphs += [(f"strands-{seed}", *random_dag(300, seed)) for seed in range(10)]
    return graphs + [("mlp-loss-3", *mlp_loss(3))]


@pytest.mark.parametrize("name, nodes, edges", corpus_graphs())
def test_networkx_generations_agree_with_kahn(name, nodes, edges):
    from core.document.layout import _longest_path

    index = {v: i for i, v in enumerate(nodes)}
    pairs = list(dict.fromkeys((index[a], index[b]) for a, b in edges))
    assert _longest_path(nodes, pairs) == kahn_generations(nodes, pairs)
    lay = sugiyama(nodes, edges)
    assert_left_to_right(lay.positions, edges)


def test_a_given_layering_replaces_ours_and_is_checked():
    nodes, edges = MICROGRAD
    plain = sugiyama(nodes, edges, layering=lambda ids, pairs: [0, 0, 2, 1, 3, 2, 4])
    column = sorted({x for x, _ in plain.positions.values()})
    assert [column.index(plain.positions[v][0]) for v in nodes] == [0, 0, 2, 1, 3, 2, 4]
    with pytest.raises(ValueError, match="not right of its operand 'a'"):
        sugiyama(nodes, edges, layering=lambda ids, pairs: [2, 0, 0, 2, 3, 3, 4])


def test_a_narrow_box_leaves_its_column_level_before_its_wire_bends():
    # found by the legibility audit: a bias (narrow) in a column of wide products sent its
    # wire diagonally through the wide box below it, inside their shared column
    sizes = {"b": (40.0, 60.0), "w": (200.0, 60.0), "p": (40.0, 60.0), "q": (40.0, 60.0)}
    lay = sugiyama(["b", "w", "p", "q"], [("b", "q"), ("w", "p")], sizes=sizes)
    (bx, by), (wx, _wy) = lay.positions["b"], lay.positions["w"]
    assert bx == wx  # one column, 200 px wide
    first = lay.routes[("b", "q")][0]
    assert first == (bx + 100.0, by)  # level to the column's right edge, then the curve
    assert ("w", "p") not in lay.routes  # the widest box needs no such point
