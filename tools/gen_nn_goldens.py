"""Generate tests/golden/nn_cases.json: what real PyTorch 2.13 observes for every case in
tests/nn_cases.py (values, dtypes, grads, grad_fn names, reprs, error texts, warnings).

Run with the oracle interpreter (torch==2.13.0, e.g. `pip install '.[oracle]'`):

    python tools/gen_nn_goldens.py            # (re)write the golden file
    python tools/gen_nn_goldens.py --check    # write nothing; exit 1 if the file is stale
    python tools/gen_nn_goldens.py -k index   # print the observations of matching cases

The output is strict JSON (nan/inf are tagged strings, addresses are masked as 0x?), one
entry per case name in definition order. tests/test_nn.py and tests/test_optim.py replay every
case with gradcli's engine, without torch, and compare. After adding or changing a case, rerun this
script and commit the case with the regenerated JSON.
"""
import sys

from case_goldens import main

if __name__ == "__main__":
    sys.exit(main("nn_cases", "nn_cases.json", "nn", __doc__.splitlines()[0]))
