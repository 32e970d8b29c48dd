"""The settings ``classroom serve`` hands to the hub: a JSON file in the hub's state directory,
named by the environment variable :data:`SETTINGS`, read by each file of ``classroom/config/``."""

from __future__ import annotations

import json
import os
from pathlib import Path

SETTINGS = "ISOTROPY_CLASSROOM"


def load() -> dict:
    path = os.environ.get(SETTINGS)
    if not path:
        raise RuntimeError(f"{SETTINGS} is not set: start the hub with 'python -m classroom serve'")
    return json.loads(Path(path).read_text())
