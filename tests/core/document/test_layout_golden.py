"""Golden crossing counts (issue 32 item 6): the layout's crossings on the shipped
examples and on three random 400-node DAGs, fixed. The layout is deterministic, so a
change in any number is a change in quality: a higher count is a regression; a lower
one is an improvement, and its number is updated here (by hand, with the commit
that earned it)."""

import os
import sys

import pytest

from core.document.layout import count_crossings, sugiyama
from core.files.graph_file import load

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_layout import random_dag  # noqa: E402

# example -> (nodes, crossings in generation order, crossings after reduction)
EXAMPLES = {
    "micrograd_more_ops.json": (33, 45, 9),
    "micrograd_sanity.json": (14, 6, 0),
    "node_used_twice.json": (3, 0, 0),
    "tanh_neuron.json": (10, 1, 0),
    "tutorial.json": (5, 0, 0),
}
RANDOM_DAGS = {0: (1075, 288), 1: (1022, 256), 2: (1083, 315)}  # seed -> (before, after), 400 nodes


def test_every_example_has_a_golden_count():
    shipped = {n for n in os.listdir(os.path.join(ROOT, "resources", "examples")) if n.endswith(".json")}
    assert shipped == set(EXAMPLES)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_examples_cross_no_more_than_their_golden_count(name):
    doc = load(os.path.join(ROOT, "resources", "examples", name))[0]
    lay = sugiyama(list(doc.nodes), [(e.src, e.dst) for e in doc.edges])
    assert (len(doc.nodes), lay.crossings_before, lay.crossings_after) == EXAMPLES[name]
    assert count_crossings(lay.layers, lay.edges) == lay.crossings_after  # the count is the drawing's


@pytest.mark.parametrize("seed", sorted(RANDOM_DAGS))
def test_random_dags_cross_exactly_their_golden_count(seed):
    nodes, edges = random_dag(400, seed)
    lay = sugiyama(nodes, edges)
    assert (lay.crossings_before, lay.crossings_after) == RANDOM_DAGS[seed]
