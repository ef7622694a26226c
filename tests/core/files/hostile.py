"""Hostile inputs for every loader, made deterministically from a seed, and a FIFO guard.

`fifo_guard(path)` turns a hang into a failure: while its block runs, a thread
keeps trying to open the FIFO for writing without blocking, which succeeds only
while someone has it open for reading. If a loader ever opens the FIFO (and so
would wait forever for a writer), the thread becomes that writer, closes at
once so the reader sees end-of-file and returns, and records it; the test then
fails instead of hanging. A loader that refuses the FIFO before opening it is
never seen.
"""

import contextlib
import json
import os
import re
import threading

# -----------------------------------------------------------------------------
# The FIFO guard


@contextlib.contextmanager
def fifo_guard(path):
    """Yield a list that holds True if anything opened the FIFO at path while the block ran."""
    opened, stop = [], threading.Event()

    def watch():
        while not stop.is_set():
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: no reader has it open
                stop.wait(0.002)
                continue
            opened.append(True)
            os.close(fd)

    thread = threading.Thread(target=watch, name="fifo-guard", daemon=True)
    thread.start()
    try:
        yield opened
    finally:
        stop.set()
        thread.join()


# -----------------------------------------------------------------------------
# Values that break assumptions, for every field of every file kind

HOSTILE_VALUES = [
    None,
    True,
    False,
    0,
    -1,
    1,
    3,
    0.5,
    -0.0,
    1e-320,
    1e308,
    -1e308,
    2**31,
    2**32,
    2**63,
    2**70,
    -(2**70),
    10**30,
    10**400,
    "",
    "x",
    "n1",
    "n999",
    "relu",
    "é",
    "ｘ",
    "𝐱",
    "\u202e",
    "\0",
    "\ud800",
    "a\udc00b",
    "\ud83d\ude00",
    "a" * 5000,
    "../../etc/passwd",
    "/dev/zero",
    [],
    {},
    [1, 2],
    [1, 2, 3],
    [[1, 2], [3]],
    [None],
    [0.0] * 625,
    [2**70] * 3,
    {"a": 1},
    {"id": "n1"},
    [[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]],
]

# pieces spliced into the text at random places
TEXT_PIECES = [
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"1e400",
    b"-1e999",
    b"9" * 5000,
    b"1" + b"0" * 400,
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\x00",
    b"\xef\xbb\xbf",
    b"[" * 100_000,
    b"{" * 2000,
    b'"\\ud800"',
    b'"\\udc00\\ud800"',
    b'"\\ud83d\\ude00"',
    b"\\\\ud800",
    b",",
    b"}",
    b"]",
    b'"',
    b"\\",
    b"// comment",
    b"/*",
    b"'",
    b"true",
    b"null",
    b"\r\n",
    b"\t",
    b"\xe2\x80\xae",
]
NUMBER_PIECES = [
    b"NaN",
    b"1e400",
    b"-1e999",
    b"9" * 5000,
    b"1" + b"0" * 400,
    b"2e-400",
    b"-0",
    b"1.0e+308",
    b"true",
    b'"1"',
    b"null",
    b"[]",
    b"4294967296",
    b"-1",
    b"1180591620717411303424",
]
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_KEY = re.compile(rb'"(?:[^"\\]|\\.)*"\s*:')


def _paths(value, prefix=()):
    """Every path (a tuple of keys and indices) to a value inside value."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value[:8]):  # long lists: their first items stand for the rest
            yield from _paths(item, prefix + (i,))


def _dumps(data, rng):
    """JSON bytes, sometimes with non-ASCII text raw (a lone surrogate then becomes bad UTF-8)."""
    text = json.dumps(data, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 1, 2]))
    return text.encode("utf-8", "surrogatepass")


def mutate_structure(base, rng):
    """base (parsed JSON) with one field replaced, removed, added or wrapped."""
    data = json.loads(json.dumps(base))
    paths = list(_paths(data))[1:]
    path = rng.choice(paths)
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    action = rng.random()
    if action < 0.6:
        parent[key] = rng.choice(HOSTILE_VALUES)
    elif action < 0.75:
        del parent[key]
    elif action < 0.85:
        target = parent[key] if isinstance(parent[key], dict) else parent
        if isinstance(target, dict):
            target[rng.choice(["unknown", "colour", "__proto__", "id", "format"])] = rng.choice(HOSTILE_VALUES)
        else:
            target.append(rng.choice(HOSTILE_VALUES))
    elif action < 0.95:
        parent[key] = [parent[key]]
    else:
        parent[key] = {"value": parent[key]}
    return _dumps(data, rng)


def mutate_text(raw, rng):
    """raw bytes of a good file, broken at the level of text."""
    kind = rng.randrange(9)
    if kind == 0:  # truncated
        return raw[: rng.randrange(len(raw))]
    if kind == 1:  # a slice cut out
        a = rng.randrange(len(raw))
        return raw[:a] + raw[a + rng.randrange(1, 40) :]
    if kind == 2:  # something spliced in anywhere
        a = rng.randrange(len(raw) + 1)
        return raw[:a] + rng.choice(TEXT_PIECES) + raw[a:]
    if kind == 3:  # a number replaced by a huge, tiny, non-finite or mistyped one
        numbers = list(_NUMBER.finditer(raw))
        m = rng.choice(numbers)
        return raw[: m.start()] + rng.choice(NUMBER_PIECES) + raw[m.end() :]
    if kind == 4:  # a key given twice in its object
        keys = list(_KEY.finditer(raw))
        m = rng.choice(keys)
        return raw[: m.start()] + m.group() + b" 0, " + raw[m.start() :]
    if kind == 5:  # a lone surrogate (or a proper pair) inside a string
        strings = list(_STRING.finditer(raw))
        m = rng.choice(strings)
        piece = rng.choice([b"\\ud800", b"\\udfff", b"\\uDBFF", b"\\ud83d\\ude00", b"\\\\ud800"])
        return raw[: m.start() + 1] + piece + raw[m.start() + 1 :]
    if kind == 6:  # the whole file nested in brackets
        n = rng.choice([50, 99, 100, 101, 1000, 100_000])
        return b"[" * n + raw + b"]" * n
    if kind == 7:  # another encoding
        return rng.choice(
            [
                raw.decode("utf-8", "replace").encode("utf-16"),
                raw.decode("utf-8", "replace").encode("utf-16-le"),
                raw.decode("utf-8", "replace").encode("latin-1", "replace") + b"\xe9",
                b"\xef\xbb\xbf" + raw,
                b"\x80\x04" + raw,
            ]
        )
    # kind 8: bytes flipped at random
    data = bytearray(raw)
    for _ in range(rng.randrange(1, 4)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


def hostile_files(base_bytes, n, rng):
    """n hostile variants of a good file: half broken as JSON values, half as text."""
    base = json.loads(base_bytes)
    return [mutate_structure(base, rng) if i % 2 == 0 else mutate_text(base_bytes, rng) for i in range(n)]


def special_paths(folder):
    """[(name, path)] of things that are not a good regular file: a FIFO, a folder,
    a link to /dev/zero, a missing path, a dangling link, a link loop, an empty
    file, a sparse 100 MB file."""
    made = []
    folder = os.fspath(folder)
    os.makedirs(folder, exist_ok=True)

    def at(name):
        path = os.path.join(folder, name)
        made.append((name, path))
        return path

    if hasattr(os, "mkfifo"):
        os.mkfifo(at("fifo.json"))
    os.mkdir(at("folder.json"))
    if os.path.exists("/dev/zero"):
        os.symlink("/dev/zero", at("zero.json"))
    at("missing.json")
    os.symlink(os.path.join(folder, "nowhere"), at("dangling.json"))
    loop = at("loop.json")
    os.symlink(loop, loop)
    open(at("empty.json"), "wb").close()
    with open(at("sparse.json"), "wb") as f:
        f.truncate(100 * 1024 * 1024)
    return made


# -----------------------------------------------------------------------------
# Typed text for core.document.expr.parse

TEXT_BASES = [
    "a*b + c",
    "x = Value(2.0, label='x')\ny = Value(-3.0, label='y')\nf = x*y + y**2\n",
    "a = Value(2.0)\nb = Value(-3.0)\nc = Value(10.0)\ne = a*b; e.label = 'e'\nd = e + c\nL = d * -2.0\n",
    "(x1*w1 + x2*w2 + b).tanh()",
    "n = x.exp(); o = (n - 1) / (n + 1)",
    "from micrograd.engine import Value\nq = Value(0.5).relu() + Value(2).log()",
]
TEXT_PIECES_TYPED = [
    "\ud800",
    "\udfff",
    "\ud83d\ude00",
    "\0",
    "\u202e",
    "ｘ",
    "𝐱",
    "ﬁ",
    "é",
    "(",
    ")",
    "(" * 200,
    ")" * 50,
    "[" * 150,
    "**",
    "9**9**9",
    "2**1001",
    "1e400",
    "-1e999",
    "'",
    '"""',
    "\\",
    "\t",
    "\r",
    "\x0c",
    "\n",
    "label='\\ud800'",
    "label='\\ud83d\\ude00'",
    "Value(",
    "lambda: 0",
    "__import__('os')",
    "import os",
    ";",
    "#",
    "\\\n",
    "a" * 300,
    "x" * 100_001,
    "1/0",
    "0**-1",
    ".",
    "..",
    "@",
    "await x",
    "yield",
    "f'{x}'",
    "b'x'",
    "x.label = 5",
    "x.data = 1",
    "del x",
    "x[0]",
    "x if y else z",
    "{1: 2}",
]


def hostile_texts(n, rng):
    """n typed texts: good formulas with hostile pieces spliced in, cut short or repeated."""
    texts = []
    for i in range(n):
        text = TEXT_BASES[i % len(TEXT_BASES)]
        for _ in range(rng.randrange(1, 4)):
            kind = rng.randrange(4)
            a = rng.randrange(len(text) + 1)
            if kind <= 1:
                text = text[:a] + rng.choice(TEXT_PIECES_TYPED) + text[a:]
            elif kind == 2:
                text = text[:a]
            else:
                text = text[:a] + text[a : a + rng.randrange(1, 30)] * rng.randrange(2, 40) + text[a:]
        texts.append(text)
    return texts
