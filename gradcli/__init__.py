"""gradcli: a command-line gradient calculator and GradScript, a small language for autograd."""

__version__ = "0.1.0"
