"""The graphs the networkx-backed code is checked on: every example, every lesson's
setup and a seeded random corpus, each as (name, GraphDocument). Not a test module:
test_graph.py, test_layout.py and test_analysis.py share it."""

import os
import random

from core.document.compile import trace
from core.document.expr import parse
from core.document.graph import OPS, GraphDocument, Node
from core.files.graph_file import load
from core.nn import MLP

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
EXAMPLES = os.path.join(ROOT, "resources", "examples")
LESSONS = os.path.join(ROOT, "resources", "lessons")


def example_docs():
    return [
        (name, load(os.path.join(EXAMPLES, name))[0]) for name in sorted(os.listdir(EXAMPLES)) if name.endswith(".json")
    ]


def lesson_docs():
    """The graph each lesson step sets up: a snippet, an example, or one sample
    through the lesson's network (traced, as the trainer's graph view shows it)."""
    from core.lessons.format import load_all  # here: a module testing the graph alone needs no lessons

    docs = []
    for lesson in load_all(LESSONS):
        for k, step in enumerate(lesson.steps):
            setup, name = step.setup, f"{lesson.id}#{k}"
            if setup is None:
                continue
            if setup.kind == "snippet":
                docs.append((name, parse(setup.source)))
            elif setup.kind == "example":
                docs.append((name, load(setup.source)[0]))
            else:
                config = setup.config
                model = MLP(len(config.features), list(config.hidden_sizes) + [1], config.activation)
                root = model([0.5] * len(config.features))
                docs.append((name, trace(root, model.parameters())[0]))
    return docs


def random_doc(seed, n=None):
    """A random valid document: leaves and ops whose ports are wired (or left
    open) to earlier nodes, then nodes shuffled so document order is not
    topological, and a few sinks left over."""
    rng = random.Random(seed)
    n = n or rng.randint(1, 120)
    window = rng.choice((2, 5, 30, n))
    doc = GraphDocument()
    ids = []
    for i in range(n):
        if i == 0 or rng.random() < 0.25:
            node = Node(
                f"n{i + 1}", rng.choice(("input", "const")), value=rng.uniform(-2, 2), label=rng.choice(("", f"x{i}"))
            )
        else:
            op = rng.choice(sorted(OPS))
            node = Node(f"n{i + 1}", "op", op, param=2.0 if op in ("pow", "rpow") else None)
        ids.append(node.id)
        doc.add_node(node)
    for i, nid in enumerate(ids):
        for port in range(doc.nodes[nid].arity()):
            if i and rng.random() < 0.95:
                doc.connect(ids[rng.randrange(max(0, i - window), i)], nid, port)
    data = doc.to_dict()
    rng.shuffle(data["nodes"])
    rng.shuffle(data["edges"])
    return GraphDocument.from_dict(data)


def random_docs(count=40):
    return [(f"random-{seed}", random_doc(seed)) for seed in range(count)]


def corpus():
    return example_docs() + lesson_docs() + random_docs()
