"""How the study store keeps a value without pickle: its arrays apart, the rest as a JSON tree.

:func:`to_tree` turns a result into JSON and a dict of numpy arrays; :func:`from_tree` builds it
back from them. A result may hold the toolkit's dataclasses, named tuples and enums, tuples,
lists, dicts, numpy arrays and scalars, numbers, strings and None; a class is named by module and
name and rebuilt only if it is one of those kinds and lives in the toolkit (``shared.``), so a
manifest written by someone else can name nothing that runs code. Floats are kept by their
shortest exact decimal, so every value comes back bit for bit.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import json
from typing import Any

import numpy as np


class InvalidEntry(Exception):
    """An entry that is incomplete, corrupt or made for other inputs (never used)."""


def to_tree(value: Any, arrays: dict[str, np.ndarray]) -> Any:
    """``value`` as JSON, its arrays moved into ``arrays``; dataclasses, named tuples and enums of
    this package, tuples, lists, dicts, numpy arrays and scalars, numbers, strings and None
    (anything else raises :class:`TypeError`)."""
    if isinstance(value, enum.Enum) and type(value).__module__.startswith("shared."):  # before str: a Choice is a str
        return {"$enum": f"{type(value).__module__}:{type(value).__qualname__}", "name": value.name}
    if value is None or isinstance(value, (bool, int, float, str)) and not isinstance(value, np.generic):
        return value
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        array = np.asarray(value)
        if array.dtype.hasobject:
            raise TypeError("the store keeps no object arrays (they would need pickle)")
        name = f"a{len(arrays)}"
        arrays[name] = array
        if isinstance(value, np.generic):
            return {"$scalar": name}
        return {"$array": name, "writeable": bool(value.flags.writeable)}
    if isinstance(value, list):
        return [to_tree(v, arrays) for v in value]
    if isinstance(value, dict):
        return {"$dict": [[to_tree(k, arrays), to_tree(v, arrays)] for k, v in value.items()]}
    cls = type(value)
    where = f"{cls.__module__}:{cls.__qualname__}"
    if isinstance(value, enum.Enum) and cls.__module__.startswith("shared."):
        return {"$enum": where, "name": value.name}
    if dataclasses.is_dataclass(value) and cls.__module__.startswith("shared."):
        fields = {f.name: to_tree(getattr(value, f.name), arrays) for f in dataclasses.fields(value) if f.init}
        return {"$class": where, "fields": fields}
    if isinstance(value, tuple) and hasattr(cls, "_fields") and cls.__module__.startswith("shared."):
        return {"$class": where, "items": [to_tree(v, arrays) for v in value]}
    if cls is tuple:
        return {"$tuple": [to_tree(v, arrays) for v in value]}
    raise TypeError(f"the store cannot keep a {where}")


def digest_content(digest: Any, value: Any) -> None:
    """Feed ``value`` into ``digest`` (a ``hashlib`` hash): its tree as JSON and every array's dtype,
    shape and bytes, so equal content gives an equal digest; a :class:`TypeError` for content the
    store cannot keep (and so cannot name)."""
    arrays: dict[str, np.ndarray] = {}
    digest.update(json.dumps(to_tree(value, arrays)).encode())
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name} {array.dtype.str} {array.shape}".encode())
        digest.update(memoryview(array).cast("B"))


def _class(where: str) -> type:
    """The dataclass or named tuple ``module:qualname`` of this package (nothing else is imported)."""
    module, _, qualname = where.partition(":")
    if not module.startswith("shared."):
        raise InvalidEntry(f"names a class outside the toolkit: {where}")
    cls: Any = importlib.import_module(module)
    for part in qualname.split("."):
        cls = getattr(cls, part, None)
    if not isinstance(cls, type) or not (dataclasses.is_dataclass(cls) or hasattr(cls, "_fields")
                                         or issubclass(cls, enum.Enum)):
        raise InvalidEntry(f"names no dataclass, named tuple or enum of the toolkit: {where}")
    return cls


def from_tree(tree: Any, arrays: dict[str, np.ndarray]) -> Any:
    if isinstance(tree, list):
        return [from_tree(v, arrays) for v in tree]
    if not isinstance(tree, dict):
        return tree
    if "$array" in tree:
        array = arrays[tree["$array"]]
        if array.flags.writeable and not tree["writeable"]:
            array.setflags(write=False)
        return array
    if "$scalar" in tree:
        return arrays[tree["$scalar"]][()]
    if "$tuple" in tree:
        return tuple(from_tree(v, arrays) for v in tree["$tuple"])
    if "$dict" in tree:
        return {_hashable(from_tree(k, arrays)): from_tree(v, arrays) for k, v in tree["$dict"]}
    if "$enum" in tree:
        return _class(tree["$enum"])[tree["name"]]
    if "$class" in tree:
        cls = _class(tree["$class"])
        if "items" in tree:
            return cls(*(from_tree(v, arrays) for v in tree["items"]))
        return cls(**{k: from_tree(v, arrays) for k, v in tree["fields"].items()})
    raise InvalidEntry(f"unknown node in the manifest: {sorted(tree)}")


def _hashable(key: Any) -> Any:
    return tuple(_hashable(k) for k in key) if isinstance(key, (list, tuple)) else key
