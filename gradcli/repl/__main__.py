"""`python -m gradcli.repl`: the REPL with default options (what `gradcli repl` runs)."""
import sys

from . import run_repl

if __name__ == "__main__":
    sys.exit(run_repl())
