"""JupyterHub's configuration for a class: every file of ``classroom/config/`` in name order.

One concern per file (``10_hub.py``: addresses, log-in, the proxy; ``20_servers.py``: the learners'
servers and their limits; ``30_culler.py``: idle-server culling). A further part of the class set-up
(assignments and grading, say) adds its own numbered file there; each file reads the settings of
``classroom serve`` with ``classroom.settings.load()``.
"""

from pathlib import Path

for part in sorted((Path(__file__).resolve().parent / "config").glob("[0-9][0-9]_*.py")):
    load_subconfig(str(part))  # noqa: F821 (provided by traitlets when it loads this file)
