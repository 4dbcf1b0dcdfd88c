"""torch.Size: the tuple a tensor's .shape and .size() return."""
from __future__ import annotations


class Size(tuple):
    """torch.Size."""
    __slots__ = ()

    def __new__(cls, sizes=()):
        items = []
        for i, d in enumerate(sizes):
            if type(d) is int:
                items.append(d)
            elif hasattr(type(d), "__index__") and not isinstance(d, float):
                try:
                    items.append(d.__index__())
                except TypeError:
                    raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                                    f"'{type(d).__name__}')") from None
            else:
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{type(d).__name__}')")
        return tuple.__new__(cls, items)

    def __repr__(self):
        return f"torch.Size([{', '.join(str(d) for d in self)}])"

    __str__ = __repr__

    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return tuple.__new__(Size, r) if isinstance(item, slice) else r

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to torch.Size")
        return tuple.__new__(Size, tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__new__(Size, tuple.__add__(other, self))

    def __mul__(self, n):
        if not hasattr(type(n), "__index__"):
            if isinstance(n, (float, complex, str, tuple, list)):
                raise TypeError(f"can't multiply sequence by non-int of type '{type(n).__name__}'")
            return NotImplemented
        return tuple.__new__(Size, tuple.__mul__(self, n))

    __rmul__ = __mul__


# the name PyTorch prints for the class (<class 'torch.Size'>) and Python's own messages use
# ('torch.Size' object is not callable)
Size.__module__ = "torch"
Size.__name__ = "torch.Size"
