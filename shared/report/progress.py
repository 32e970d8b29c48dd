"""Progress of the report's passes: one updating line on stderr."""

from __future__ import annotations

import sys
import time


class Progress:
    """One updating line on stderr (at most twice a second), or nothing when not enabled."""

    def __init__(self, rows: int, passes: int, enabled: bool) -> None:
        self.rows, self.passes, self.enabled = rows, passes, enabled
        self.done = 0
        self.start = self.last = time.perf_counter()

    def advance(self, pass_number: int, rows: int) -> None:
        if not self.enabled:
            return
        self.done += rows
        now = time.perf_counter()
        if now - self.last < 0.5 and self.done < self.rows * self.passes:
            return
        self.last = now
        share = self.done / (self.rows * self.passes)
        sys.stderr.write(
            f"\risotropy_report: pass {pass_number}/{self.passes}, {100 * share:5.1f}% of the reading done, "
            f"{now - self.start:6.1f} s"
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()
