"""The big picture's wires: which are drawn, where they run, how many cross (core/scopes/layout.py)."""

import numpy as np

from core.scopes.layout import BUS, crossings, drawn_wires, route
from core.scopes.view import Units


def units_of(n, wires, blocks=()):
    src = np.array([a for a, _ in wires], dtype=np.int64)
    dst = np.array([b for _, b in wires], dtype=np.int64)
    node = np.array([-1 if u in blocks else u for u in range(n)], dtype=np.int64)
    scope = np.array([u if u in blocks else 0 for u in range(n)], dtype=np.int64)
    return Units(scope, node, np.arange(n), np.arange(n), src, dst, np.ones(len(src), dtype=np.int64))


def test_two_wires_that_swap_rows_cross_once_and_parallel_ones_do_not():
    units = units_of(4, [(0, 3), (1, 2)])
    pos = np.array([[0.0, 0.0], [0.0, 100.0], [400.0, 0.0], [400.0, 100.0]])
    assert crossings(units, pos) == 1
    pos[[2, 3]] = pos[[3, 2]]
    assert crossings(units, pos) == 0


def test_a_wire_into_a_later_band_runs_above_its_readers_row():
    units = units_of(2, [(0, 1)])
    pos = np.array([[500.0, 0.0], [0.0, 300.0]])  # the reader is left of the source, a band lower
    points = route(units, pos, 0)
    assert points[0][0] > 500 and points[-1][0] < 0
    assert all(y < 300 - 64 / 2 for _, y in points[2:4])  # along the gap above the reader


def test_the_inputs_bus_is_not_drawn_but_a_few_wires_from_inputs_are():
    many = units_of(BUS + 3, [(0, k) for k in range(1, BUS + 3)], blocks=(0,))
    assert len(drawn_wires(many, {0: "inputs"})) == 0
    assert len(drawn_wires(many, {0: "call"})) == BUS + 2
    few = units_of(3, [(0, 1), (0, 2)], blocks=(0,))
    assert len(drawn_wires(few, {0: "inputs"})) == 2
