"""The harness that runs beside a learner's engine, and nothing else.

Copied into the child's box as a package of its own: it imports only Python's
standard library and its own modules (a test proves it), never the studio's
engine, op table or checker. `shapes` reads the shapes of Value classes,
`graph` reads their graph as plain data, `build` builds a test program with
their class, `probe` runs the tests and reports numbers, `main` is the
process's entry point. The verdict is the parent's (core/foreign/judge.py).
"""
