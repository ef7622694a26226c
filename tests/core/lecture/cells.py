"""Cells as a learner pastes them from Karpathy's micrograd lecture and micrograd's
README, written here in our own words with the same shapes: the same statements,
the same numbers, the same idioms (`x1w1 = x1*w1; x1w1.label = ...`, `sum(..., self.b)`
over a `zip`, one-neuron layers unwrapped, a `%matplotlib inline` line)."""

# the neuron of the lecture: tanh(x1*w1 + x2*w2 + b), with b chosen so that o = 1/sqrt(2)
NEURON = """\
# two inputs
x1 = Value(2.0, label='x1')
x2 = Value(0.0, label='x2')
# their weights
w1 = Value(-3.0, label='w1')
w2 = Value(1.0, label='w2')
# the bias
b = Value(6.8813735870195432, label='b')
x1w1 = x1*w1; x1w1.label = 'x1*w1'
x2w2 = x2*w2; x2w2.label = 'x2*w2'
x1w1x2w2 = x1w1 + x2w2; x1w1x2w2.label = 'x1*w1 + x2*w2'
n = x1w1x2w2 + b; n.label = 'n'
o = n.tanh(); o.label = 'o'
"""

# the lecture's own classes, as its second half writes them (tanh neurons, weights and
# biases from the global random module)
CLASSES = """\
class Neuron:

  def __init__(self, nin):
    self.w = [Value(random.uniform(-1,1)) for _ in range(nin)]
    self.b = Value(random.uniform(-1,1))

  def __call__(self, x):
    act = sum((wi*xi for wi, xi in zip(self.w, x)), self.b)
    return act.tanh()

  def parameters(self):
    return self.w + [self.b]

class Layer:

  def __init__(self, nin, nout):
    self.neurons = [Neuron(nin) for _ in range(nout)]

  def __call__(self, x):
    outs = [n(x) for n in self.neurons]
    return outs[0] if len(outs) == 1 else outs

  def parameters(self):
    return [p for neuron in self.neurons for p in neuron.parameters()]

class MLP:

  def __init__(self, nin, nouts):
    sz = [nin] + nouts
    self.layers = [Layer(sz[i], sz[i+1]) for i in range(len(nouts))]

  def __call__(self, x):
    for layer in self.layers:
      x = layer(x)
    return x

  def parameters(self):
    return [p for layer in self.layers for p in layer.parameters()]
"""

USE_MLP = """\
x = [2.0, 3.0, -1.0]
n = MLP(3, [4, 4, 1])
n(x)
"""

DATA = """\
xs = [
  [2.0, 3.0, -1.0],
  [3.0, -1.0, 0.5],
  [0.5, 1.0, 1.0],
  [1.0, 1.0, -1.0],
]
ys = [1.0, -1.0, -1.0, 1.0]
"""

TRAIN = """\
for k in range(20):
  ypred = [n(x) for x in xs]
  loss = sum((yout - ygt)**2 for ygt, yout in zip(ys, ypred))
  for p in n.parameters():
    p.grad = 0.0
  loss.backward()
  for p in n.parameters():
    p.data += -0.1 * p.grad
  print(k, loss.data)
"""

# micrograd's README example: every op micrograd has, printed to 4 decimals
README = """\
from micrograd.engine import Value

a = Value(-4.0)
b = Value(2.0)
c = a + b
d = a * b + b**3
c += c + 1
c += 1 + c + (-a)
d += d * 2 + (b + a).relu()
d += 3 * d + (b - a).relu()
e = c - d
f = e**2
g = f / 2.0
g += 10.0 / f
print(f'{g.data:.4f}')
g.backward()
print(f'{a.grad:.4f}')
print(f'{b.grad:.4f}')
"""

# the lecture's first Value class, written by the learner: a set of children, labels,
# closures, a recursive build_topo; sub and div missing, as at that point of the lecture
OWN_VALUE = """\
import math

class Value:
  def __init__(self, data, _children=(), _op='', label=''):
    self.data = data
    self.grad = 0.0
    self._backward = lambda: None
    self._prev = set(_children)
    self._op = _op
    self.label = label

  def __add__(self, other):
    out = Value(self.data + other.data, (self, other), '+')
    def _backward():
      self.grad += out.grad
      other.grad += out.grad
    out._backward = _backward
    return out

  def __mul__(self, other):
    out = Value(self.data * other.data, (self, other), '*')
    def _backward():
      self.grad += other.data * out.grad
      other.grad += self.data * out.grad
    out._backward = _backward
    return out

  def tanh(self):
    t = (math.exp(2*self.data) - 1)/(math.exp(2*self.data) + 1)
    out = Value(t, (self,), 'tanh')
    def _backward():
      self.grad += (1 - t**2) * out.grad
    out._backward = _backward
    return out

  def backward(self):
    topo, seen = [], set()
    def build(v):
      if v not in seen:
        seen.add(v)
        for child in v._prev:
          build(child)
        topo.append(v)
    build(self)
    self.grad = 1.0
    for node in reversed(topo):
      node._backward()
"""

# the first cell of the lecture's notebooks
IMPORTS = """\
import math
import random
import numpy as np
import matplotlib.pyplot as plt
%matplotlib inline
"""
