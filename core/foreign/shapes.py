"""The shapes learners give their Value class: the table lives with the child's
harness (core/foreign/child/shapes.py), which reads their objects in the box;
the studio's own readers (show(), the notebook, the lecture runner) read the
user's objects in the user's own process through the same table."""

from core.foreign.child.shapes import (  # noqa: F401 -- the one table, re-exported
    BACKWARD,
    CHILDREN,
    DATA,
    GRAD,
    Shape,
    backward_of,
    children,
    eps_of,
    is_value_class,
    is_value_like,
    number,
    one_like,
    zero_like,
)
