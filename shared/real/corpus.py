"""The course corpus: reads the course's own English sentences, paraphrase pairs and traps from ``shared/data``.

:func:`load_corpus` reads ``corpus.txt`` (single sentences by topic) and ``pairs.tsv`` (paraphrase
pairs and traps); :func:`split_halves` splits them into a fit half and a held-out half, keeping
each pair and trap whole. :data:`DATA` is the folder of the course's data files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import _checks

PAIR_KINDS = ("overlap", "reworded")  # the two kinds of paraphrase pair in ``pairs.tsv``


@dataclass(frozen=True)
class Corpus:
    """The course's own English sentences.

    ``sentences[pairs[p, 0]]`` and ``sentences[pairs[p, 1]]`` are paraphrases of each other, of the
    kind ``kind[p]`` (``"overlap"``: many content words in common; ``"reworded"``: few or none).
    ``traps[t]`` are the rows of two sentences with most words in common and opposite meanings
    (traps, not paraphrases). ``topic[i]`` names the group sentence ``i`` was written under.
    """

    sentences: tuple[str, ...]
    topic: tuple[str, ...]
    pairs: np.ndarray
    kind: tuple[str, ...]
    traps: np.ndarray


DATA = Path(__file__).resolve().parent.parent / "data"


def load_corpus() -> Corpus:
    """Read ``shared/data/corpus.txt`` (single sentences by topic) and ``pairs.tsv`` (paraphrase
    pairs and traps, one ``kind<TAB>first<TAB>second`` line each); ``## name`` lines name
    the group (topic) of the lines below them, other ``#`` lines are comments."""
    sentences, topic = [], []
    pairs, kind, traps = [], [], []
    for name in ("corpus.txt", "pairs.tsv"):
        current = ""
        for number, line in enumerate((DATA / name).read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith("## "):
                current = line[3:].strip()
            elif not line.strip() or line.startswith("#"):
                continue
            elif name == "corpus.txt":
                sentences.append(line.strip())
                topic.append(current)
            else:
                fields = [field.strip() for field in line.split("\t")]
                if len(fields) != 3 or fields[0] not in (*PAIR_KINDS, "negation") or not all(fields):
                    raise ValueError(f"{name}, line {number}: expected kind<TAB>first<TAB>second with kind one of"
                                     f" {(*PAIR_KINDS, 'negation')}, got {line!r}")
                rows = (len(sentences), len(sentences) + 1)
                if fields[0] == "negation":
                    traps.append(rows)
                else:
                    pairs.append(rows)
                    kind.append(fields[0])
                sentences += fields[1:]
                topic += [current] * 2
    if len(set(sentences)) != len(sentences):
        raise ValueError("shared/data: a sentence occurs twice; every sentence must be unique")
    return Corpus(tuple(sentences), tuple(topic), np.array(pairs, dtype=np.int64), tuple(kind),
                  np.array(traps, dtype=np.int64))


def fit_share(fraction: object) -> float:
    """``fraction`` checked as a share of the corpus strictly between 0 and 1."""
    fraction = _checks.real(fraction, "fraction", 0.0, 1.0)
    if not 0.0 < fraction < 1.0:
        raise ValueError(f"fraction: expected a number between 0 and 1 (both excluded), got {fraction}")
    return fraction


def split_halves(corpus: Corpus, rng: np.random.Generator | int, fraction: float = 0.5) -> np.ndarray:
    """A random half of the sentences, as a boolean mask (True: the *fit* half).

    A paraphrase pair or a trap always falls into one half whole, so the other half can
    test what a remedy fitted without those sentences does to them. ``fraction`` (0 to 1, both
    excluded) makes the fit part that share of the units (single sentences, pairs and traps)
    instead of a half; the first ``fraction`` of the same random order, so 0.5 gives the halves.
    """
    _checks.instance(corpus, Corpus, "corpus")
    rng = _checks.as_rng(rng)
    fraction = fit_share(fraction)
    n = len(corpus.sentences)
    unit = np.arange(n)
    for two in (corpus.pairs, corpus.traps):
        unit[two[:, 1]] = two[:, 0]  # both sentences of a pair share one unit
    units = np.unique(unit)
    chosen = rng.permutation(units)[: int(len(units) * fraction)]  # len // 2 at 0.5, exactly
    return np.isin(unit, chosen)

