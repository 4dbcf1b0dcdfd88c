"""torch.einsum (torch's algorithm: the contraction order and the permutes and bmm it records) and
torch.cdist, with their declarations (OPS) and tables.
"""
from __future__ import annotations

import numpy as np

from .. import errors
from ..argcheck import typename
from ..device import like
from ..function import Function, record
from ..tensor import Tensor, wrap
from . import arithmetic as AR
from . import linalg as L
from .matmul import matmul
from . import reduction as R
from . import shape as S
from .linalg_extra import c10, diagonal
from .registry import Sample, V, case, lazy_inplace, tables
from .registry import op as declare

# ---------------------------------------------------------------------------- einsum (torch's algorithm)

_ELL = 52


def _subscript(ch):
    return ord(ch) - ord("A") if ch.isupper() else ord(ch) - ord("a") + 26


def _label(s):
    return chr(s + ord("A")) if s < 26 else chr(s - 26 + ord("a"))


def _sublist_label(n):
    """torch.functional.einsum's parse_subscript: 0-25 are A-Z, 26-51 a-z, Ellipsis '...'."""
    if n is Ellipsis:
        return "..."
    if isinstance(n, int) and 0 <= n < 26:
        return chr(ord("A") + n)
    if isinstance(n, int) and 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise errors.value("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def _check_parsed(equation, operands):
    """_VF.einsum's argument parser: (str equation, tuple of Tensors tensors)."""
    if not isinstance(equation, str):
        raise errors.type_error(f"einsum(): argument 'equation' (position 1) must be str, not {typename(equation)}")
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise errors.type_error(f"expected Tensor as element {i} in argument 1, but got {typename(t)}")


def einsum(*args):
    if len(args) < 2:
        raise errors.value("einsum(): must specify the equation string and at least one operand, or at least one "
                           "operand and its subscripts list")
    if isinstance(args[0], Tensor):  # the sublist form: operand, [subscripts], ..., [output subscripts]
        equation = ",".join("".join(_sublist_label(n) for n in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(_sublist_label(n) for n in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    _check_parsed(equation, operands)
    if not operands:
        raise errors.runtime("einsum(): must provide at least one operand")
    num_ops = len(operands)
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = [[] for _ in range(num_ops)]
    ell_in_input = False
    cur = 0
    i = 0
    while i < len(lhs):
        ch = lhs[i]
        if ch == " ":
            pass
        elif ch == ".":
            if ell_in_input:
                raise errors.runtime(f"einsum(): found '.' for operand {cur} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) + 0 and lhs[i + 1:i + 3] == ".."):
                raise errors.runtime(f"einsum(): found '.' for operand {cur} that is not part of any ellipsis")
            i += 2
            op_labels[cur].append(_ELL)
            ell_in_input = True
        elif ch == ",":
            cur += 1
            if cur >= num_ops:
                raise errors.runtime("einsum(): fewer operands were provided than specified in the equation")
            ell_in_input = False
        else:
            if not (ch.isascii() and ch.isalpha()):
                raise errors.runtime(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                     "subscripts must be in [a-zA-Z]")
            op_labels[cur].append(_subscript(ch))
        i += 1
    if cur != num_ops - 1:
        raise errors.runtime("einsum(): more operands were provided than specified in the equation")

    label_count = [0] * 52
    ell_num_dim = 0
    for k, (op, labels) in enumerate(zip(operands, op_labels)):
        ndims = op._data.ndim
        nlabels = len(labels)
        has_ell = False
        for lab in labels:
            if lab == _ELL:
                nlabels -= 1
                has_ell = True
                ell_num_dim = max(ell_num_dim, ndims - nlabels)
            else:
                label_count[lab] += 1
        if (nlabels > ndims) if has_ell else (nlabels != ndims):
            raise errors.runtime(
                f"einsum(): the number of subscripts in the equation ({nlabels}) "
                f"{'is more than' if has_ell else 'does not match'} the number of dimensions ({ndims}) for operand "
                f"{k}{'' if has_ell else ' and no ellipsis was given'}")

    perm_of = [-1] * 52
    perm_index = 0
    ell_index = 0
    ell_in_output = False
    if arrow < 0:
        perm_index = ell_num_dim
        ell_in_output = True
        for lab in range(52):
            if label_count[lab] == 1:
                perm_of[lab] = perm_index
                perm_index += 1
    else:
        rhs = equation[arrow + 2:]
        i = 0
        while i < len(rhs):
            ch = rhs[i]
            if ch == " ":
                pass
            elif ch == ".":
                if ell_in_output:
                    raise errors.runtime("einsum(): found '.' for output but an ellipsis (...) was already found")
                if rhs[i + 1:i + 3] != "..":
                    raise errors.runtime("einsum(): found '.' for output that is not part of any ellipsis (...)")
                i += 2
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            else:
                if not (ch.isascii() and ch.isalpha()):
                    raise errors.runtime(f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                                         "equation string, subscripts must be in [a-zA-Z]")
                lab = _subscript(ch)
                if not (label_count[lab] > 0 and perm_of[lab] == -1):
                    why = "appears more than once in the output" if perm_of[lab] > -1 else \
                        "does not appear in the equation for any input operand"
                    raise errors.runtime(f"einsum(): output subscript {ch} {why}")
                perm_of[lab] = perm_index
                perm_index += 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for lab in range(52):
        if label_count[lab] > 0 and perm_of[lab] == -1:
            perm_of[lab] = perm_index
            perm_index += 1

    dt = operands[0].dtype
    for op in operands[1:]:
        if op.dtype is not dt:
            raise errors.runtime(f"expected scalar type {c10(dt)} but found {c10(op.dtype)}")

    label_size = [1] * 52
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops = []
    for k, (op, labels) in enumerate(zip(operands, op_labels)):
        permutation = [-1] * perm_index
        dim = 0
        for lab in labels:
            if lab == _ELL:
                ndim = operands[k]._data.ndim - (len(labels) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    size = op._data.shape[dim]
                    if size != 1:
                        if not (ell_sizes[j] == 1 or ell_sizes[j] == size):
                            raise errors.runtime(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {k}has size {size} which "
                                f"does not broadcast with previously seen ellipsis with size {ell_sizes[j]} for the "
                                "respective dimension")
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_of[lab]] == -1:
                size = op._data.shape[dim]
                if size != 1:
                    if not (label_size[lab] == 1 or label_size[lab] == size):
                        raise errors.runtime(
                            f"einsum(): subscript {_label(lab)} has size {size} for operand {k} which does not "
                            f"broadcast with previously seen size {label_size[lab]}")
                    label_size[lab] = size
                    dim_counts[perm_of[lab]] += 1
                permutation[perm_of[lab]] = dim
                dim += 1
            else:
                prev = permutation[perm_of[lab]]
                if op._data.shape[dim] != op._data.shape[prev]:
                    raise errors.runtime(
                        f"einsum(): subscript {_label(lab)} is repeated for operand {k} but the sizes don't match, "
                        f"{op._data.shape[dim]} != {op._data.shape[prev]}")
                op = S.movedim(diagonal(op, 0, prev, dim), -1, prev)
        for j, val in enumerate(permutation):
            if val == -1:
                op = S.unsqueeze(op, dim)
                permutation[j] = dim
                dim += 1
        ops.append(S.permute(op, permutation))

    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims, a_sum, b_sum = [], [], []
        for dim in range(out_num_dim, perm_index):
            sa = a._data.shape[dim] != 1
            sb = b._data.shape[dim] != 1
            if sa and sb:
                if a._data.shape[dim] != b._data.shape[dim]:
                    raise errors.runtime("non-broadcast dimensions must match")
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if sa:
                    a_sum.append(dim)
                    dim_counts[dim] = 0
                elif sb:
                    b_sum.append(dim)
                    dim_counts[dim] = 0
        if a_sum:
            a = R.sum(a, dim=tuple(a_sum), keepdim=True)
        if b_sum:
            b = R.sum(b, dim=tuple(b_sum), keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))

    result = ops[0]
    if perm_index - out_num_dim > 0:
        if num_ops > 1:
            return S.view(result, tuple(result._data.shape[:out_num_dim]))
        return R.sum(result, dim=tuple(range(out_num_dim, perm_index)))
    return result


def _sumproduct_pair(left, right, sum_dims):
    """(left * right).sum(sum_dims, keepdim=True) by permutes and one bmm, as torch computes it."""
    if not sum_dims:
        return AR.mul(left, right)
    ndim = left._data.ndim
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(ndim):
        sl = left._data.shape[i] != 1
        sr = right._data.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                sum_size *= left._data.shape[i]
            elif sl:
                left = R.sum(left, dim=i, keepdim=True)
            elif sr:
                right = R.sum(right, dim=i, keepdim=True)
        elif sl and sr:
            lro.append(i)
            lro_size *= left._data.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left._data.shape[i]
        else:
            ro.append(i)
            ro_size *= right._data.shape[i]
    if lo and ro and ro[-1] < lo[0]:
        left, right = right, left
        lo, ro = ro, lo
        lo_size, ro_size = ro_size, lo_size
    out_size = [left._data.shape[d] for d in lro] + [left._data.shape[d] for d in lo] + [1] * len(sum_dims) + \
        [right._data.shape[d] for d in ro]
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [-1] * len(out_size)
    for i, d in enumerate(lro + lo + list(sum_dims) + ro):
        operm[d] = i
    left = S.reshape(S.permute(left, lperm), (lro_size, lo_size, sum_size))
    right = S.reshape(S.permute(right, rperm), (lro_size, sum_size, ro_size))
    result = L.bmm(left, right)
    return S.permute(S.view(result, tuple(out_size)), operm)


# ---------------------------------------------------------------------------- cdist

def pnorm_distance_grad(diff, dist, p):
    """d dist / d diff of the p-norm distance dist of the differences diff (dist broadcast against diff): the
    gradient of cdist's and pdist's backward (ATen's pdist/cdist backward kernels, per p); 0 where dist is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            return np.zeros_like(diff)
        if p == 1:
            return np.sign(diff)
        if p == 2:
            return np.where(dist == 0, 0, diff / dist)
        if p == float("inf"):
            return np.sign(diff) * (np.abs(diff) == dist)
        return np.where(dist == 0, 0, diff * np.abs(diff) ** (p - 2) / dist ** (p - 1))


class CdistBackward0(Function):
    """torch.cdist's direct kernel; edges (x1, x2)."""
    __slots__ = ()
    explain = ("the p-norm's gradient of each pair's difference, summed over {b}'s rows", "minus the same, summed over {a}'s rows")
    explain_factor = False
    replay = staticmethod(lambda xs, kw, outs: [np.linalg.norm(xs[0][..., :, None, :] - xs[1][..., None, :, :], ord=kw["p"], axis=-1)
                                                .reshape(outs[0])])
    save_inputs = True
    save_output = True

    def backward(self, g):
        x1, x2, dist = self.saved
        p = self._kw["p"]
        gd, a, b, d = g._data, x1._data, x2._data, dist._data
        diff = a[..., :, None, :] - b[..., None, :, :]
        dd = d[..., None]
        term = pnorm_distance_grad(diff, dd, p)
        contrib = (gd[..., None] * term).astype(a.dtype)
        g1 = wrap(like(a, contrib.sum(axis=-2)), x1.dtype)
        g2 = wrap(like(b, -contrib.sum(axis=-3)), x2.dtype)
        for r in (g1, g2):
            record(CdistBackwardBackward0, (g, x1, x2), r)
        return g1, g2


class CdistBackwardBackward0(Function):
    __slots__ = ()

    def backward(self, g):
        raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


def _euclidean_dist(x1, x2):
    """ATen's _euclidean_dist: the matmul form torch uses for p=2 when a side has more than 25 rows."""
    from .join_split import cat  # noqa: PLC0415
    x1_norm = R.sum(AR.pow(x1, 2), -1, True)
    x2_norm = R.sum(AR.pow(x2, 2), -1, True)
    from ..factory import ones_like  # noqa: PLC0415
    x1_ = cat([AR.mul(x1, -2), x1_norm, ones_like(x1_norm)], -1)
    x2_ = cat([x2, ones_like(x2_norm), x2_norm], -1)
    result = matmul(x1_, S.transpose(x2_, -2, -1))
    return result.clamp_min_(1e-30).sqrt_()


def cdist(x1, x2, p=2.0, compute_mode=None):
    for name, t in (("X1", x1), ("X2", x2)):
        if t._data.ndim < 2:
            raise errors.runtime(f"cdist only supports at least 2D tensors, {name} got: {t._data.ndim}D")
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.dtype.is_floating_point:
            raise errors.runtime(f"cdist only supports floating-point dtypes, {name} got: {t.dtype.legacy[:-6]}")
    if x1.shape[-1] != x2.shape[-1]:
        raise errors.runtime(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
                             f"{x2.shape[-1]}")
    if p < 0:
        raise errors.runtime("cdist only supports non-negative p values")
    rows1, rows2 = x1.shape[-2], x2.shape[-2]
    if p == 2 and (compute_mode == "use_mm_for_euclid_dist" or
                   (compute_mode in (None, "use_mm_for_euclid_dist_if_necessary") and (rows1 > 25 or rows2 > 25))):
        out = _euclidean_dist(x1, x2)
        return S.view(out, tuple(out.shape))
    a, b = x1._data, x2._data
    diff = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        d = (diff != 0).sum(-1).astype(a.dtype)
    elif p == 1:
        d = diff.sum(-1)
    elif p == 2:
        d = np.sqrt((diff * diff).sum(-1))
    elif p == float("inf"):
        d = diff.max(-1) if diff.shape[-1] else np.zeros(diff.shape[:-1], a.dtype)
    else:
        # std::pow on each float (correctly rounded: through float64), the sum in the input's type
        terms = (diff.astype(np.float64) ** p).astype(a.dtype)
        d = (terms.sum(-1).astype(np.float64) ** (1.0 / p)).astype(a.dtype)
    out = wrap(like(a, np.asarray(d, a.dtype)), x1.dtype)
    return record(CdistBackward0, (x1, x2), out, {"p": p})


# ---------------------------------------------------------------------------- declarations

OPS = [
    # torch.X only
    declare("cdist", cdist, CdistBackward0, method=False, sample=Sample(  # torch's double backward raises
        [((2, 4, 3), (2, 5, 3))], second=False)),
    declare("einsum", einsum, method=False, sample=Sample(  # the nodes of the products it makes
        [((2, 3), (3, 2))], call=lambda torch, x, y: torch.einsum("ij,jk->ik", x, y)),
       cases={"einsum_mm": case(lambda torch, a, b: torch.einsum('ij,jk->ik', a, b), V.M23, V.M33),
              "einsum_trace": case(lambda torch, a: torch.einsum('ii', a), V.M33),
              "einsum_diag": case(lambda torch, a: torch.einsum('ii->i', a), V.M33),
              "einsum_dot": case(lambda torch, a: torch.einsum('i,i->', a, a), V.A),
              "einsum_outer": case(lambda torch, a, b: torch.einsum('i,j->ij', a, b), V.A, V.B),
              "einsum_three": case(lambda torch, a, b: torch.einsum('ij,jk,kl->il', a, b, b), V.M23, V.M33),
              "einsum_ellipsis": case(lambda torch, a, b: torch.einsum('...j,jk->...k', a, b), V.M23, V.M33)}),
]

_TABLES = tables(OPS, lazy_inplace)  # its tables (registry.tables): Tensor methods, x.name_(), torch.<name> only, ...
METHODS, INPLACE, TORCH, LINALG = (_TABLES[k] for k in ("METHODS", "INPLACE", "TORCH", "LINALG"))
