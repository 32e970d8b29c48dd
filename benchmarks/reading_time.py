"""How long each notebook takes a learner, estimated, against the estimate its header states.

Every time here and in the headers is an *estimate* from the model below, not a measurement: no
learner has been timed. What is measured is only the running time of the cells (``--measure``).

Run with ``uv run python benchmarks/reading_time.py`` (the recorded running times) or with
``--measure`` (each notebook executed afresh by ``benchmarks/notebooks.py``, which takes minutes).

The model, per notebook, counts what a learner who reads and does everything in it meets on the
lesson's path (appendices, from a heading "## Appendix ...", are optional reading and left out):

* reading: the words of its prose (markdown cells, code blocks left out) and of its printed
  output (every table and line the cells print, numbers counted as words, folded outputs too,
  since a learner opens them) at :data:`WORDS_PER_MINUTE`, a pace for technical text with
  formulas and tables (studies of reading put prose at 200 to 250 words a minute and dense
  technical material at about half that);
* exercises: :data:`MINUTES_PER_QUESTION` for each question (Predict, Explain, Compute) and
  :data:`MINUTES_PER_IMPLEMENTATION` for each function to write (Implement);
* predictions: :data:`MINUTES_PER_PREDICTION` for each "Predict first" prompt, the guess and the
  comparison with the folded output;
* explorer: :data:`MINUTES_PER_PROMPT` for each "Try this." prompt;
* running: the notebook's running time with the kernel's start (:data:`RUN_SECONDS`).

The estimate is their sum; the header's ``**Time:** about N minutes`` should be within
:data:`TOLERANCE` of it (``tests/test_reading_time.py`` checks that from the counts, which are
deterministic; the running times are recorded here, not measured by the test). The hands-on part
(exercises, predictions, prompts) is what a class does at the keyboard; TEACHING.md plans a
90-minute class from both parts.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

from shared.real.models import real_models

ROOT = Path(__file__).resolve().parent.parent
WORDS_PER_MINUTE = 110.0
APPENDIX = re.compile(r"^## Appendix\b", re.M)
MINUTES_PER_QUESTION = 3.0
MINUTES_PER_IMPLEMENTATION = 8.0
MINUTES_PER_PREDICTION = 1.0
MINUTES_PER_PROMPT = 2.0
TOLERANCE = 0.25
# Seconds to run each notebook with the kernel's start (benchmarks/notebooks.py, two cores shared
# with other work): 01-06 as measured; 08 and the real models' notebooks (07, 09) at their targets
# in that script (15 s of cells plus the kernel's start; the records' seconds, 35 s and 60 s), since
# under that load they took 46 s, 134 s and 331 s.
RUN_SECONDS = {"01": 7.0, "02": 3.0, "03": 9.0, "04": 16.0, "05": 9.0, "06": 28.0, "08": 18.0}


def recorded_seconds(stem: str) -> float:
    """The recorded seconds of the notebook ``stem`` (a real model's notebook: its record's target)."""
    models = {m.stem: m.seconds for m in real_models()}
    return models[stem] if stem in models else RUN_SECONDS[stem[:2]]

CLAIM = re.compile(r"\*\*Time:\*\* about (\d+) minutes")
EXERCISE = re.compile(r"\*\*(?:Your turn · )?(\d\d\.\d) · (\w+)\.\*\*")
PREDICTION = re.compile(r"\*\*Predict first\.\*\*")
FENCE = re.compile(r"```.*?```", re.S)
WORD = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*|[-+]?\d+(?:[.,]\d+)*")
PROMPT = re.compile(r"^(\d+)\. ", re.M)


@dataclass(frozen=True)
class NotebookTime:
    """A notebook's counts, its estimated minutes and the minutes its header claims."""

    name: str
    words: int
    printed: int
    questions: int
    implementations: int
    predictions: int
    prompts: int
    run_seconds: float
    claimed: int

    @property
    def reading(self) -> float:
        """Minutes to read the prose and the printed output."""
        return (self.words + self.printed) / WORDS_PER_MINUTE

    @property
    def hands_on(self) -> float:
        """Minutes at the keyboard: exercises, predictions, explorer prompts and running the cells."""
        return (MINUTES_PER_QUESTION * self.questions + MINUTES_PER_IMPLEMENTATION * self.implementations
                + MINUTES_PER_PREDICTION * self.predictions + MINUTES_PER_PROMPT * self.prompts
                + self.run_seconds / 60.0)

    @property
    def estimate(self) -> float:
        return self.reading + self.hands_on

    @property
    def off_by(self) -> float:
        """(claimed - estimate) / estimate."""
        return (self.claimed - self.estimate) / self.estimate


def prompts(markdown: list[str]) -> int:
    """The number of prompts in the "Try this." list (the numbered lines after it, up to a blank line)."""
    for text in markdown:
        if "**Try this.**" in text:
            return len(PROMPT.findall(text.split("**Try this.**", 1)[1].split("\n\n", 1)[0]))
    return 0


def printed_text(cell: nbformat.NotebookNode) -> str:
    """What a code cell prints: its stdout (tables, lines of figures), not its pictures or widgets."""
    return "".join(out.get("text", "") for out in cell.get("outputs", [])
                   if out.get("output_type") == "stream" and out.get("name") == "stdout")


def lesson(nb: nbformat.NotebookNode) -> tuple[list[str], list[str]]:
    """The markdown and the printed output of the lesson's path: every cell up to the first
    appendix heading (the part of that cell before the heading included)."""
    markdown, printed = [], []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            before, *after = APPENDIX.split(cell.source, maxsplit=1)
            markdown.append(before)
            if after:
                break
        elif cell.cell_type == "code":
            printed.append(printed_text(cell))
    return markdown, printed


def notebook_time(path: Path, run_seconds: float | None = None) -> NotebookTime:
    """Count the prose words, printed words, exercises, predictions and prompts of the notebook at ``path``."""
    nb = nbformat.read(path, as_version=4)
    everything = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    kinds = [kind for _, kind in EXERCISE.findall(everything)]  # exercises count wherever they are asked
    markdown, printed = lesson(nb)
    claim = CLAIM.search(markdown[0])
    if claim is None:
        raise ValueError(f"{path.name}: its header has no '**Time:** about N minutes'")
    text = "\n".join(markdown)
    return NotebookTime(path.stem, len(WORD.findall(FENCE.sub(" ", text))), len(WORD.findall("\n".join(printed))),
                        sum(kind != "Implement" for kind in kinds), kinds.count("Implement"),
                        len(PREDICTION.findall(text)), prompts(markdown),
                        recorded_seconds(path.stem) if run_seconds is None else run_seconds, int(claim.group(1)))


def main(argv: list[str]) -> int:
    measure = "--measure" in argv
    if measure:
        from notebooks import measure as run  # benchmarks/notebooks.py, next to this file
    print(f"{'notebook':26s} {'words':>6s} {'printed':>7s} {'questions':>9s} {'implement':>9s} {'predict':>7s}"
          f" {'prompts':>7s} {'run s':>6s} {'reading':>7s} {'hands-on':>8s} {'estimate':>8s} {'claimed':>7s}"
          f" {'off by':>7s}")
    failed = False
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        t = notebook_time(path, run(path)[1] if measure else None)
        failed |= abs(t.off_by) > TOLERANCE
        print(f"{t.name:26s} {t.words:6d} {t.printed:7d} {t.questions:9d} {t.implementations:9d} {t.predictions:7d}"
              f" {t.prompts:7d} {t.run_seconds:6.0f} {t.reading:7.1f} {t.hands_on:8.1f} {t.estimate:8.1f}"
              f" {t.claimed:7d} {t.off_by:+7.0%}")
    print(f"model: {WORDS_PER_MINUTE:.0f} words a minute of prose and printed output, {MINUTES_PER_QUESTION:.0f} min a"
          f" question, {MINUTES_PER_IMPLEMENTATION:.0f} min a function to write, {MINUTES_PER_PREDICTION:.0f} min a"
          f" prediction, {MINUTES_PER_PROMPT:.0f} min a Try-this prompt, plus the running time; a claim should be"
          f" within {TOLERANCE:.0%} of the estimate. These are estimates from a model, not times measured on learners.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main(sys.argv[1:]))
