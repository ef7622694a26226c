"""Not Python: a syntax error on line 4."""


class Value(:
    pass
