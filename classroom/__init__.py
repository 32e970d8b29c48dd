"""The course served to a class from one machine: a JupyterHub, one OS account per learner.

``python -m classroom serve --roster roster.csv`` (as root) installs the course's environment where
every learner can read it and none can write it, creates the accounts, hands each learner a
password of their own (in a file only root can read), fills the study store and starts the hub.
The pieces: :mod:`classroom.roster` (the roster file), :mod:`classroom.accounts` (OS users and
passwords), :mod:`classroom.install` (the shared environment, the course files, the store),
:mod:`classroom.auth` (the hub's log-in check), :mod:`classroom.spawner` (one server per learner,
with its limits), ``classroom/config/`` (the hub's configuration, one file per concern) and
:mod:`classroom.cli` (the commands).
"""
