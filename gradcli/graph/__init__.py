"""See the gradient: the backward graph as data and pictures (model, writers), the chain-rule
walkthrough (explain), finite-difference checks of every backward pass (check), and the hooks
that attach them to a GradScript run (hooks)."""
