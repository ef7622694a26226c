"""Scopes: the Python call (and loop turn) that made each node, the groups of big graphs.

record.py   the recorder, on only while asked (a traced script, `with recording():`)
source.py   where a function's loops and numbered sections are
names.py    a node's name from the line of code that made it (`val - max_val`, `scale`)
graph.py    a traced graph as compact arrays, with its scopes (ScopedGraph)
foreign.py  a learner's Values as a ScopedGraph
view.py     the graph collapsed by scope, blocks expanded in place
infer.py    blocks read from the graph itself when no scopes were recorded (`collapsed`)
layout.py   laying out what is shown, in bands; `picture` for the canvas
debug.py    the one debugger (DebugSession) moved a block or an op at a time
script.py   tracing a script in a child process (the studio's engine or the learner's class)
"""
