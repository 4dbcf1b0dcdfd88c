"""GradScript texts the suite runs: the seeds' training loop (case 3) and the long scripts that
the parser is timed on (case 7). Every text is also valid Python, so torch and Lark's Python
grammar read the same bytes."""
from __future__ import annotations

# The seeds' loop as the seed tutorial writes it (003: class Net, optimizer.zero_grad(), ...).
# Variants go from the tutorial's form to the plainest one, so the case runs with whatever the
# language supports today; the report names the variant that ran.
_PRELUDE_CLASS = '''\
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(10, 5)
        self.fc2 = nn.Linear(5, 2)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        return self.fc2(x)


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_function = nn.MSELoss()
inputs = torch.randn(32, 10)
labels = torch.randn(32, 2)
for step in range({steps}):
    optimizer.zero_grad()
    outputs = model(inputs)
    loss = loss_function(outputs, labels)
    loss.backward()
    optimizer.step()
'''

_PRELUDE_LAYERS = '''\
import torch
import torch.nn as nn

torch.manual_seed(0)
fc1 = nn.Linear(10, 5)
fc2 = nn.Linear(5, 2)
optimizer = torch.optim.SGD(list(fc1.parameters()) + list(fc2.parameters()), lr=0.01)
loss_function = nn.MSELoss()
inputs = torch.randn(32, 10)
labels = torch.randn(32, 2)
for step in range({steps}):
    optimizer.zero_grad()
    outputs = fc2(torch.relu(fc1(inputs)))
    loss = loss_function(outputs, labels)
    loss.backward()
    optimizer.step()
'''

_PRELUDE_PRIMITIVES = '''\
import torch

torch.manual_seed(0)
w1 = (torch.rand(5, 10) * 0.6 - 0.3).requires_grad_()
b1 = (torch.rand(5) * 0.6 - 0.3).requires_grad_()
w2 = (torch.rand(2, 5) * 0.9 - 0.45).requires_grad_()
b2 = (torch.rand(2) * 0.9 - 0.45).requires_grad_()
params = [w1, b1, w2, b2]
inputs = torch.randn(32, 10)
labels = torch.randn(32, 2)
for step in range({steps}):
    for p in params:
        p.grad = None
    outputs = torch.addmm(b2, torch.relu(torch.addmm(b1, inputs, w1.t())), w2.t())
    loss = ((outputs - labels) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= 0.01 * p.grad
'''

TRAIN_SCRIPTS = (
    ("class Net(nn.Module) + optim.SGD + nn.MSELoss (the seed's form)", _PRELUDE_CLASS),
    ("nn.Linear + optim.SGD + nn.MSELoss, no class", _PRELUDE_LAYERS),
    ("primitives: addmm, relu, mean, p -= lr * p.grad", _PRELUDE_PRIMITIVES),
)


def train_script(template, steps):
    return template.format(steps=steps)


# Case 2's chain as a script: the same 0-d ops (Python float operands), alternating, then backward.
_CHAIN = '''\
import torch

x = torch.tensor(1.5, requires_grad=True)
y = x
for _ in range({half}):
    y = y * {mul}
    y = y + {add}
y.backward()
'''


def chain_script(n, mul, add):
    """A GradScript text of case 2's chain: n ops (n // 2 multiplications and additions) and backward."""
    return _CHAIN.format(half=n // 2, mul=repr(mul), add=repr(add))


# ----------------------------------------------------------------------------- parse input

_BLOCK = '''\
x{i} = torch.tensor([1., 2., 3.], requires_grad=True)
w{i} = torch.randn(3, 3) * 0.5 + 1e-3
y{i} = (w{i} @ x{i}).relu().sum() + x{i}[0] * {i}
z{i} = x{i} ** 2 / (1. + x{i}.exp()) - x{i}[1:].mean()
y{i}.backward(retain_graph=True)
print('step', {i}, x{i}.grad, y{i}.item() > 0, sep=' ')
if y{i} > 0 and not {i} % 3 == 1:
    a{i}, b{i} = x{i}[0], x{i}[-1]
for k in range(2):
    x{i}.grad.zero_()
'''
_BLOCK_STATEMENTS = 10  # lines of _BLOCK, each one statement (a block's header and its body line count as two)


def parse_script(statements):
    """A GradScript text of `statements` statements (tutorial-style lines, also valid Python)."""
    blocks = -(-statements // _BLOCK_STATEMENTS)
    lines = ["import torch\n"]
    text = "".join(_BLOCK.format(i=i) for i in range(blocks))
    body = text.splitlines(keepends=True)[: statements - 1]
    if body and body[-1].rstrip().endswith(":"):  # the cut fell after a block header: close it
        body[-1] = "last = 0\n"
    return "".join(lines + body)
