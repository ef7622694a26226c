"""Graph files: golden files of every schema load forever, every hostile file is refused by
name, saves are atomic (even under SIGKILL), and what loads is exactly what was saved."""

import json
import os
import random
import signal
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.document.compile import compile_document
from core.document.graph import GraphDocument, Node
from core.files import graph_file, strict_json
from core.files.graph_file import FormatError, dumps, load, loads, save

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DATA = os.path.join(ROOT, "tests", "data")
BAD = os.path.join(DATA, "bad")


def golden_doc():
    """What tests/data/graph_v1.json and graph_v0.json hold."""
    doc = GraphDocument()
    doc.add_node(Node("n1", "input", value=2.0, label="x", pos=(0, 0)))
    doc.add_node(Node("n2", "input", value=3.0, label="y", pos=(0, 80)))
    doc.add_node(Node("n3", "op", "mul", pos=(150, 0)))
    doc.add_node(Node("n4", "op", "pow", param=2, pos=(150, 80)))
    doc.add_node(Node("n5", "op", "add", label="f", pos=(300, 40)))
    doc.add_node(Node("n6", "const", value=0.5, pos=(0, 160)))
    doc.add_node(Node("n7", "op", "rpow", param=2.0, label="e", pos=(150, 160)))
    doc.add_node(Node("n8", "op", "sigmoid", label="σ", pos=(300, 160)))
    for edge in [
        ("n1", "n3", 0),
        ("n2", "n3", 1),
        ("n2", "n4", 0),
        ("n3", "n5", 0),
        ("n4", "n5", 1),
        ("n6", "n7", 0),
        ("n7", "n8", 0),
    ]:
        doc.connect(*edge)
    doc.set_output("n5")
    return doc


# -- golden files ------------------------------------------------------------------


def test_golden_schema_1_loads_and_writes_back_byte_for_byte():
    path = os.path.join(DATA, "graph_v1.json")
    doc, meta = load(path)
    assert doc.to_dict() == golden_doc().to_dict()
    assert meta["title"] == "Golden file, schema 1"
    with open(path, encoding="utf-8") as f:
        assert dumps(doc, meta) == f.read()
    compiled = compile_document(doc)
    compiled.output.backward()
    assert compiled.output.data == 15.0
    assert compiled.values["n1"].grad == 3.0 and compiled.values["n2"].grad == 8.0


def test_golden_schema_0_is_migrated():
    doc, meta = load(os.path.join(DATA, "graph_v0.json"))
    assert doc.to_dict() == golden_doc().to_dict()
    assert meta == {"title": "Golden file, schema 0"}


def test_migrations_run_one_step_at_a_time(monkeypatch):
    """With a pretend schema 2, a schema 0 file goes through 0 -> 1 -> 2, in order."""
    steps = []

    def migrate_1_to_2(data):
        steps.append(1)
        return dict(data, schema_version=2, meta=dict(data["meta"], upgraded=True))

    def migrate_0_to_1(data):
        steps.append(0)
        return graph_file.migrate_0_to_1(data)

    monkeypatch.setattr(graph_file, "SCHEMA_VERSION", 2)
    monkeypatch.setattr(graph_file, "MIGRATIONS", {0: migrate_0_to_1, 1: migrate_1_to_2})
    doc, meta = load(os.path.join(DATA, "graph_v0.json"))
    assert steps == [0, 1]
    assert meta["upgraded"] is True and doc.to_dict() == golden_doc().to_dict()


def test_migration_does_not_change_its_input():
    with open(os.path.join(DATA, "graph_v0.json"), encoding="utf-8") as f:
        data = json.load(f)
    before = json.dumps(data)
    graph_file.migrate_0_to_1(data)
    assert json.dumps(data) == before


# -- the hostile corpus: file -> words its FormatError must contain ----------------

EXPECTED = {
    "empty.json": ["empty"],
    "whitespace_only.json": ["empty"],
    "truncated.json": ["not valid JSON", "line 66"],
    "trailing_comma.json": ["not valid JSON", "line 125, column 20"],
    "single_quotes.json": ["not valid JSON", "double quotes", "line 2"],
    "comment.json": ["not valid JSON", "line 1, column 1"],
    "trailing_garbage.json": ["Extra data", "line 132"],
    "unterminated_string.json": ["Unterminated string", "column 12"],
    "duplicate_key.json": ["'kind' appears twice", "'n1'"],
    "nul_byte.json": ["not valid JSON", "control character", "line 2"],
    "top_level_list.json": ["JSON object", "not a list"],
    "top_level_string.json": ["JSON object", "not a string"],
    "missing_format.json": ["not a Backprop Studio graph", "'format'"],
    "foreign_format.json": ["not a Backprop Studio graph", "'vnd.excalidraw'"],
    "wrong_format.json": ["'session' file, not a graph"],
    "missing_schema_version.json": ["no 'schema_version'"],
    "schema_version_string.json": ["schema_version must be an integer", "'1'"],
    "schema_version_float.json": ["schema_version must be an integer", "1.5"],
    "newer_schema.json": ["made by a newer Backprop Studio (schema 3); this version reads up to 1"],
    "negative_schema.json": ["unknown schema_version -1"],
    "unknown_top_level_field.json": ["unknown top-level field 'window'"],
    "meta_not_object.json": ["meta must be an object"],
    "meta_title_number.json": ["meta 'title' must be text", "42"],
    "nan_in_meta.json": ["meta.scale", "NaN"],
    "deep_meta.json": ["meta.notes", "nested more than 16 levels"],
    "graph_not_object.json": ["'graph' must be an object", "list"],
    "nodes_not_list.json": ["'nodes' must be a list"],
    "node_not_object.json": ["node 2 must be an object"],
    "node_missing_id.json": ["node 1 has no 'id'"],
    "node_id_number.json": ["node 0", "'id' must be a non-empty string"],
    "duplicate_ids.json": ["duplicate node id 'n2'", "nodes 1 and 3"],
    "unknown_kind.json": ["node 'n1'", "unknown kind 'parameter'"],
    "unknown_op.json": ["node 'n3'", "unknown op 'softmax'"],
    "unknown_node_field.json": ["node 'n3'", "unknown field 'colour'"],
    "value_string.json": ["node 'n1'", "'value' must be a number", "'2.0'"],
    "value_bool.json": ["node 'n2'", "'value' must be a number", "true"],
    "input_without_value.json": ["node 'n2'", "needs a 'value'"],
    "op_with_value.json": ["node 'n3'", "an op node has no 'value'"],
    "pow_without_param.json": ["node 'n4'", "pow needs its exponent in 'param'"],
    "param_on_mul.json": ["node 'n3'", "mul takes no 'param'"],
    "label_number.json": ["node 'n5'", "'label' must be text"],
    "pos_three_numbers.json": ["node 'n5'", "'pos' must be a list [x, y]"],
    "pos_string.json": ["node 'n5'", "'pos' must be a list [x, y]"],
    "edges_not_list.json": ["'edges' must be a list"],
    "edge_as_list.json": ["edge 1 must be an object"],
    "edge_missing_port.json": ["edge 3 has no 'port'"],
    "edge_port_bool.json": ["edge 0", "'port' must be an integer", "false"],
    "edge_port_negative.json": ["edge 0", "'port' must be an integer >= 0", "-1"],
    "edge_port_out_of_range.json": ["edge 0 (n1 → n3:2)", "no input port 2"],
    "dangling_edge_src.json": ["edge 2 (n99 → n4:0) is dangling", "no node 'n99'"],
    "dangling_edge_dst.json": ["edge 2 (n2 → n42:0) is dangling", "no node 'n42'"],
    "edge_into_input.json": ["edge 7", "'n1' is an input", "no input ports"],
    "duplicate_edge_port.json": ["edges 1 and 7 both feed input 1 of node 'n3'"],
    "self_loop.json": ["edge 6", "'n8' feeds itself"],
    "cycle.json": ["cycle", "n9 → n10 → n9"],
    "cycle_through_output.json": ["cycle", "n3 → n5 → n9 → n3"],
    "output_dangling.json": ["output", "'n9' is not a node"],
    "output_number.json": ["output", "must be a node id"],
    "nan_value.json": ["node 'n1'", "'value' is NaN"],
    "infinity_value.json": ["node 'n2'", "'value' is Infinity"],
    "negative_infinity_pos.json": ["node 'n5'", "pos x is -Infinity"],
    "huge_float_1e400.json": ["node 'n6'", "1e400", "too large"],
    "huge_param.json": ["node 'n4'", "-1e999", "too large"],
    "huge_integer.json": ["node 'n1'", "5001 characters", "too large"],
    "deep_nesting.json": ["nested too deeply"],
    "utf16.json": ["UTF-16"],
    "utf16_no_bom.json": ["UTF-16"],
    "latin1.json": ["not UTF-8", "0xe9", "line 45"],
    "pickle.json": ["pickle", "never loads pickles"],
    "png_bytes.json": ["not UTF-8", "0x89", "offset 0"],
    "v0_edge_as_object.json": ["schema 0", "edge 2 must be a list [src, dst, port]"],
    "v0_kind_and_type.json": ["schema 0", "node 0 has 'kind'"],
}


def test_every_bad_file_has_an_expectation():
    assert sorted(os.listdir(BAD)) == sorted(EXPECTED)
    assert len(EXPECTED) >= 30


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_file_is_refused_by_name(name):
    path = os.path.join(BAD, name)
    with pytest.raises(FormatError) as caught:
        load(path)
    message = str(caught.value)
    assert message.startswith(path + ": ")  # the file is named too
    for words in EXPECTED[name]:
        assert words in message


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_bytes_are_refused_by_loads_too(name):
    with open(os.path.join(BAD, name), "rb") as f:
        raw = f.read()
    with pytest.raises(FormatError):
        loads(raw)


def test_a_file_over_the_size_limit_is_refused_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "huge.json"
    with open(path, "wb") as f:  # sparse: 100 MB on paper, nothing on disk
        f.truncate(100 * 1024 * 1024)

    def no_reading(*args, **kwargs):
        raise AssertionError("the file was opened")

    monkeypatch.setattr(strict_json, "_open_for_reading", no_reading)
    with pytest.raises(FormatError, match=r"104\.9 MB; a graph file is at most 20 MB"):
        load(path)


def test_text_over_the_size_limit_is_refused():
    with pytest.raises(FormatError, match="over 20 MB"):
        loads(" " * (graph_file.MAX_BYTES + 1))


def test_a_missing_file_is_a_format_error_naming_it(tmp_path):
    # issue 20: was FileNotFoundError; every loader now raises its own error
    path = tmp_path / "nothing.json"
    with pytest.raises(FormatError, match="nothing.json: there is no such file"):
        load(path)


def test_a_utf8_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + dumps(golden_doc()).encode("utf-8"))
    assert load(path)[0].to_dict() == golden_doc().to_dict()


# -- writing ---------------------------------------------------------------------


def test_dumps_is_sorted_indented_and_ends_with_a_newline():
    text = dumps(golden_doc(), {"title": "t"})
    data = json.loads(text)
    assert list(data) == ["format", "graph", "meta", "schema_version"]
    assert data["format"] == "backprop-studio.graph" and data["schema_version"] == 1
    assert text.endswith("}\n") and '\n  "graph": {\n' in text
    assert "σ" in text  # readable UTF-8, not \u escapes


def test_save_and_load_round_trip(tmp_path):
    path = tmp_path / "g.json"
    meta = {"title": "Mine", "description": "two\nlines", "tags": ["a", 1, 2.5, True, None]}
    save(golden_doc(), path, meta)
    doc, loaded_meta = load(path)
    assert doc.to_dict() == golden_doc().to_dict() and loaded_meta == meta
    assert os.listdir(tmp_path) == ["g.json"]  # no temporary file left behind


def test_save_refuses_non_finite_meta_and_leaves_the_old_file(tmp_path):
    path = tmp_path / "g.json"
    save(golden_doc(), path)
    before = path.read_bytes()
    for meta in ({"scale": float("nan")}, {"title": 3}, {"when": {1, 2}}, "title"):
        with pytest.raises(FormatError):
            save(GraphDocument(), path, meta)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["g.json"]


def test_a_failed_replace_keeps_the_old_file_and_cleans_up(tmp_path, monkeypatch):
    path = tmp_path / "g.json"
    save(golden_doc(), path)
    before = path.read_bytes()

    def disk_trouble(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_trouble)
    with pytest.raises(OSError, match="the disk is full"):  # in words, naming g.json (issue 32 item 9)
        save(GraphDocument(), path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["g.json"]


@pytest.mark.skipif(os.name != "posix", reason="file modes and symlinks are POSIX")
def test_save_keeps_the_file_mode_and_writes_through_a_symlink(tmp_path):
    target = tmp_path / "real.json"
    save(GraphDocument(), target)
    os.chmod(target, 0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    save(golden_doc(), link)
    assert link.is_symlink()
    assert os.stat(target).st_mode & 0o777 == 0o640
    assert load(target)[0].to_dict() == golden_doc().to_dict()


KILLED_SAVER = r"""
import os, stat, sys, time
sys.path.insert(0, sys.argv[1])
from core.document.graph import GraphDocument, Node
from core.files import graph_file

# Save in a loop; in round HANG, stop inside os.fsync -- of the temp file (before the rename)
# or of the directory (after it) -- and say so: the parent kills the process right there.
HANG, WHERE = int(sys.argv[3]), sys.argv[4]
real_fsync = os.fsync
round = 0
def fsync(fd):
    is_file = stat.S_ISREG(os.fstat(fd).st_mode)
    if round == HANG and is_file == (WHERE == "before rename"):
        print("inside", flush=True)
        time.sleep(3600)
    real_fsync(fd)
os.fsync = fsync

doc = GraphDocument()
doc.add_node(Node("n1", "input", value=0.5, label="x"))
for k in range(2, 4001):
    doc.add_node(Node(f"n{k}", "op", "tanh", label=f"layer {k}", pos=(k * 10.0, k % 7)))
    doc.connect(f"n{k - 1}", f"n{k}", 0)
while True:
    round += 1
    graph_file.save(doc, sys.argv[2], {"title": "saved in a loop", "round": round})
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_killing_a_save_midway_never_damages_the_file(tmp_path):
    # The kill lands at a point the child announces (not after a guessed sleep), so the
    # test proves the same thing on a fast machine and on a loaded one.
    path = tmp_path / "big.json"
    small = GraphDocument()
    small.add_node(Node("n1", "input", value=1.0, label="before"))
    save(small, path, {"round": 0})
    rng = random.Random(20240607)
    last, torn, rounds = 0, 0, []
    for _trial in range(6):
        hang, where = rng.randint(1, 3), rng.choice(["before rename", "after rename"])
        child = subprocess.Popen(
            [sys.executable, "-c", KILLED_SAVER, ROOT, str(path), str(hang), where], stdout=subprocess.PIPE, text=True
        )
        try:
            assert child.stdout.readline().strip() == "inside"
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
            child.stdout.close()
        doc, meta = load(path)  # always whole: the old file or the new one
        expected = hang - 1 if where == "before rename" else hang
        if expected == 0:  # nothing renamed yet in this run: the previous run's file
            expected = last
        assert meta["round"] == expected
        assert len(doc.nodes) == (1 if expected == 0 else 4000)
        last = meta["round"]
        rounds.append(last)
        leftovers = [p for p in tmp_path.iterdir() if p.name != "big.json"]
        assert len(leftovers) == (1 if where == "before rename" else 0)
        for leftover in leftovers:  # a killed save leaves its temp file, never a torn big.json
            assert leftover.name.startswith(".big.json.") and leftover.name.endswith(".tmp")
            leftover.unlink()
            torn += 1
    assert max(rounds) > 0, "no save finished before a kill: the test proved nothing"
    assert torn > 0, "no kill landed inside a save: the test proved nothing"


# -- round trips and fuzzing ---------------------------------------------------------


def test_node_order_and_output_survive(tmp_path):
    doc = golden_doc()
    doc.remove_node("n1")
    doc.add_node(Node("n1", "input", value=-2.5, label="x again"))
    doc.connect("n1", "n3", 0)
    doc.set_output(None)
    loaded = loads(dumps(doc))[0]
    assert list(loaded.nodes) == list(doc.nodes) and loaded.output is None
    assert loaded.to_dict() == doc.to_dict()


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_random_byte_damage_raises_format_error_or_loads(data):
    text = bytearray(dumps(golden_doc(), {"title": "fuzz"}).encode("utf-8"))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(text) - 1))
        action = data.draw(st.sampled_from(["set", "delete", "insert"]))
        byte = data.draw(st.integers(0, 255))
        if action == "set":
            text[i] = byte
        elif action == "delete":
            del text[i]
        else:
            text.insert(i, byte)
    try:
        doc, meta = loads(bytes(text))
    except FormatError:
        return
    assert loads(dumps(doc, meta))[0].to_dict() == doc.to_dict()


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, prefix + (i,))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_field_replaced_by_any_json_raises_format_error_or_loads(data):
    tree = json.loads(dumps(golden_doc(), {"title": "fuzz"}))
    path = data.draw(st.sampled_from(list(_paths(tree))[1:]))
    replacement = data.draw(JSON_VALUES)
    holder = tree
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = replacement
    try:
        doc, meta = loads(json.dumps(tree))
    except FormatError:
        return
    assert loads(dumps(doc, meta))[0].to_dict() == doc.to_dict()


# -- the examples shipped in resources/examples --------------------------------------

EXAMPLES = os.path.join(ROOT, "resources", "examples")

# file -> (output data, {input label: gradient of the output})
KNOWN = {
    "tutorial.json": (15.0, {"x": 3.0, "y": 8.0}),
    "micrograd_sanity.json": (-20.0, {"x": 46.0}),
    "micrograd_more_ops.json": (24.70408163265306, {"a": 138.83381924198252, "b": 645.5772594752186}),
    "tanh_neuron.json": (0.7071067811865476, {"x1": -1.5, "w1": 1.0, "x2": 0.5, "w2": 0.0, "b": 0.5}),
    "node_used_twice.json": (18.0, {"a": 12.0}),
}


def test_every_example_has_known_numbers():
    assert sorted(name for name in os.listdir(EXAMPLES) if name.endswith(".json")) == sorted(KNOWN)


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_example_computes_its_known_numbers(name):
    doc, meta = load(os.path.join(EXAMPLES, name))
    assert meta["title"] and meta["description"]
    compiled = compile_document(doc)
    assert not compiled.missing and compiled.output is not None
    compiled.output.backward()
    output, grads = KNOWN[name]
    assert compiled.output.data == pytest.approx(output, rel=1e-12)
    by_label = {doc.nodes[nid].label: value for nid, value in compiled.values.items() if doc.nodes[nid].kind == "input"}
    assert sorted(by_label) == sorted(grads)
    for label, grad in grads.items():
        assert by_label[label].grad == pytest.approx(grad, rel=1e-12, abs=1e-12), label


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_example_reads_left_to_right(name):
    doc, _meta = load(os.path.join(EXAMPLES, name))
    for src, dst, _port in doc.edges:
        assert doc.nodes[src].pos[0] < doc.nodes[dst].pos[0], (src, dst)
    spots = [node.pos for node in doc.nodes.values()]
    assert len(set(spots)) == len(spots)  # no two boxes on the same spot
    with open(os.path.join(EXAMPLES, name), encoding="utf-8") as f:
        assert f.read() == dumps(*load(os.path.join(EXAMPLES, name)))  # saved by this writer


def test_a_lone_surrogate_label_is_refused_on_load_with_its_line(tmp_path):
    # issue 20: label "\ud800" loaded, then Save and autosave failed for good
    doc = GraphDocument()
    doc.add_node(Node("n1", "input", value=1.0, label="x"))
    text = dumps(doc).replace('"label": "x"', '"label": "\\ud800"')
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "ud800" in row)
    path = tmp_path / "surrogate.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError, match=rf"surrogate.json: line {line}, column \d+: \\ud800 is half"):
        load(path)
    assert loads(text.replace("\\ud800", "\\ud83d\\ude00"))[0].nodes["n1"].label == "😀"  # a pair is fine


def test_every_loadable_text_saves_back_even_with_escapes():
    doc = GraphDocument()
    doc.add_node(Node("n1", "input", value=1.0, label="x"))
    text = dumps(doc, {"title": "\\u00e9"}).replace('"label": "x"', '"label": "\\u00e9\\ud83d\\ude00"')
    loaded, meta = loads(text)
    assert loads(dumps(loaded, meta))[0].to_dict() == loaded.to_dict()
