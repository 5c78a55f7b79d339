"""Network outputs: tuples (logits first, as skorch expects) with named fields."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar


class ModuleOutput(tuple):
    """A tuple of tensors whose fields are also reachable by name.

    Unlike ``typing.NamedTuple`` it is built from one iterable, which is how
    skorch rebuilds tuples when it moves them between devices.

    Examples
    --------
    >>> class Pair(ModuleOutput):
    ...     fields = ("logits", "attention")
    >>> Pair([1, 2]).attention
    2
    """

    fields: ClassVar[tuple[str, ...]] = ()

    def __new__(cls, items: Iterable):
        items = tuple(items)
        if len(items) != len(cls.fields):
            raise ValueError(f"{cls.__name__} takes {len(cls.fields)} items, got {len(items)}")
        return super().__new__(cls, items)

    def __getattr__(self, name: str):
        try:
            return self[self.fields.index(name)]
        except ValueError:
            raise AttributeError(name) from None
