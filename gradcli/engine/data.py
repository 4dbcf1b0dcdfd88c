"""torch.utils.data for map-style datasets: Dataset, TensorDataset, Subset, ConcatDataset,
random_split, the samplers (Sequential, Random, Batch), default_collate/default_convert and
DataLoader, following torch/utils/data/*.py step for step so that the random stream is torch's:
every DataLoader iteration draws its `_base_seed` (one int64 `random_()`) from the loader's
generator (the default one when None), then a shuffling RandomSampler without a generator draws
the seed of a fresh torch.Generator (another `random_()`) and yields `randperm(n)` of it;
random_split takes `randperm(sum(lengths))` from its generator. Workers are not started:
num_workers > 0 loads in the script's process, which gives the same batches."""
from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from . import dtypes, errors
from .limits import metered
from .tensor import Tensor


def _random_int64(generator=None):
    """torch.empty((), dtype=torch.int64).random_(generator=generator).item()"""
    from .factory import empty  # noqa: PLC0415
    return empty((), dtype=dtypes.int64).random_(generator=generator).item()


def _randperm(n, generator):
    from .rng_factory import randperm  # noqa: PLC0415
    return randperm(n, generator=generator).tolist()


# ---------------------------------------------------------------------------- datasets

class Dataset:
    """The base of map-style datasets (`__getitem__`, `__len__`); `a + b` is a ConcatDataset."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class TensorDataset(Dataset):
    def __init__(self, *tensors):
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise errors.assertion("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class Subset(Dataset):
    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise errors.assertion("datasets should not be an empty iterable")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise errors.value("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


def random_split(dataset, lengths, generator=None):
    """torch's random_split: fractions become lengths (the remainder dealt out round-robin), then
    consecutive slices of randperm(sum(lengths), generator) (the default generator when None)."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise errors.value(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * frac))
        remainder = len(dataset) - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              UserWarning, stacklevel=2)
    if sum(lengths) != len(dataset):
        raise errors.value("Sum of input lengths does not equal the length of the input dataset!")
    indices = _randperm(sum(lengths), generator)
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]


# ---------------------------------------------------------------------------- samplers

class Sampler:
    pass


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return metered(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise errors.type_error(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise errors.value(f"num_samples should be a positive integer value, but got "
                               f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            from .rng import Generator  # noqa: PLC0415
            generator = Generator()
            generator.manual_seed(int(_random_int64()))
        yield from metered(self._indices(n, generator))

    def _indices(self, n, generator):
        if self.replacement:
            from .rng_factory import randint  # noqa: PLC0415
            for _ in range(self.num_samples // 32):
                yield from randint(high=n, size=(32,), dtype=dtypes.int64, generator=generator).tolist()
            yield from randint(high=n, size=(self.num_samples % 32,), dtype=dtypes.int64,
                               generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from _randperm(n, generator)
            yield from _randperm(n, generator)[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise errors.value(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise errors.value(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        sampler_iter = iter(self.sampler)
        if self.drop_last:
            yield from (list(batch) for batch in zip(*[sampler_iter] * self.batch_size))
        else:
            batch = list(itertools.islice(sampler_iter, self.batch_size))
            while batch:
                yield batch
                batch = list(itertools.islice(sampler_iter, self.batch_size))

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


# ---------------------------------------------------------------------------- collation

_COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                  "found {}")


def _class_repr(value):
    """repr(type(value)) as torch's message shows it: a script's own class is __main__'s."""
    cls = type(value)
    if getattr(cls, "__module__", None) == "__main__":
        return f"<class '__main__.{cls.__qualname__}'>"
    from .argcheck import typename  # noqa: PLC0415
    return f"<class '{typename(value)}'>"


def default_collate(batch):
    """torch's default_collate: tensors stacked along a new dim 0, NumPy arrays and numbers made
    tensors (floats float64), dicts by key, tuples and lists transposed (a list comes back)."""
    from .factory import as_tensor, tensor  # noqa: PLC0415
    from .ops.join_split import stack  # noqa: PLC0415
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "SaUO":
            raise errors.type_error(_COLLATE_ERROR.format(elem.dtype))
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number)):
        return as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=dtypes.float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, str):
        return batch
    if isinstance(elem, Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, Sequence):
        if any(len(e) != len(elem) for e in batch):
            raise errors.runtime("each element in list of batch should be of equal size")
        return [default_collate(list(samples)) for samples in zip(*batch)]
    raise errors.type_error(_COLLATE_ERROR.format(_class_repr(elem)))


def default_convert(data):
    """What a DataLoader without batching (batch_size=None) gives: NumPy arrays as tensors, tuples
    as lists, the rest unchanged."""
    from .factory import as_tensor  # noqa: PLC0415
    if isinstance(data, np.ndarray) and data.dtype.kind not in "SaUO":
        return as_tensor(data)
    if isinstance(data, Mapping):
        return {key: default_convert(data[key]) for key in data}
    if isinstance(data, (tuple, list)):
        return [default_convert(d) for d in data]
    return data


# ---------------------------------------------------------------------------- DataLoader

class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise errors.value("num_workers option should be non-negative; use num_workers=0 to disable "
                               "multiprocessing.")
        if timeout < 0:
            raise errors.value("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise errors.value("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                               "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        if persistent_workers and num_workers == 0:
            raise errors.value("persistent_workers option needs num_workers > 0")
        self.dataset, self.num_workers, self.prefetch_factor = dataset, num_workers, prefetch_factor
        self.pin_memory, self.pin_memory_device, self.timeout = pin_memory, pin_memory_device, timeout
        self.worker_init_fn, self.multiprocessing_context, self.in_order = (worker_init_fn, multiprocessing_context,
                                                                            in_order)
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise errors.value("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise errors.value("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                   "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise errors.value("batch_size=None option disables auto-batching and is mutually exclusive with "
                               "drop_last")
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self._auto_collation = batch_sampler is not None
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        return _SingleProcessDataLoaderIter(self)

    def __len__(self):
        return len(self._index_sampler())


class _SingleProcessDataLoaderIter:
    """iter(loader): it takes the sampler's iterator (a generator: it draws at the first batch),
    then draws its _base_seed (the workers' seeds, drawn always); each next() is one batch."""

    def __init__(self, loader):
        self._loader = loader
        self._sampler_iter = iter(loader._index_sampler())
        _random_int64(loader.generator)

    def __iter__(self):
        return self

    def __next__(self):
        loader = self._loader
        index = next(self._sampler_iter)
        data = [loader.dataset[i] for i in index] if loader._auto_collation else loader.dataset[index]
        return loader.collate_fn(data)

    def __len__(self):
        return len(self._loader)


NAMES = ("Dataset", "TensorDataset", "Subset", "ConcatDataset", "random_split", "Sampler", "SequentialSampler",
         "RandomSampler", "BatchSampler", "default_collate", "default_convert", "DataLoader")

for _n, _path in (("Dataset", "dataset"), ("TensorDataset", "dataset"), ("Subset", "dataset"),
                  ("ConcatDataset", "dataset"), ("random_split", "dataset"), ("Sampler", "sampler"),
                  ("SequentialSampler", "sampler"), ("RandomSampler", "sampler"), ("BatchSampler", "sampler"),
                  ("default_collate", "_utils.collate"), ("default_convert", "_utils.collate"),
                  ("DataLoader", "dataloader")):
    globals()[_n].__module__ = "torch.utils.data." + _path
_SingleProcessDataLoaderIter.__module__ = "torch.utils.data.dataloader"
