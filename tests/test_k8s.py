"""The Kubernetes config of the class (classroom/k8s/config.yaml) is one the chart accepts.

Helm deep-merges the chart's default values with a config and validates the result against the
chart's JSON schema; this test does the same with the chart's own files, which live outside the
repository (reference data, see their README): ``../shared/classroom/z2jh/`` beside the clone,
or the folder named by ``ISOTROPY_Z2JH``. The tests are marked ``z2jh`` and deselected from the
default run, so that a fresh clone with nothing beside it passes; ``.ci/run`` runs them. Without the
files they are skipped, saying where they looked, unless ``ISOTROPY_Z2JH`` names a folder: then its
files must be there.
"""

from __future__ import annotations

import copy
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
K8S = ROOT / "classroom" / "k8s"

pytestmark = pytest.mark.z2jh


def _chart_dir() -> Path:
    candidates = [Path(os.environ["ISOTROPY_Z2JH"])] if os.environ.get("ISOTROPY_Z2JH") else []
    candidates += [ROOT.parent / "shared" / "classroom" / "z2jh", ROOT.parent.parent / "shared" / "classroom" / "z2jh"]
    for candidate in candidates:
        if (candidate / "values.yaml").is_file() and (candidate / "values.schema.yaml").is_file():
            return candidate
    where = ("the Zero to JupyterHub chart's values.yaml and values.schema.yaml were not found in "
             + ", ".join(map(str, candidates)) + " (set ISOTROPY_Z2JH to their folder)")
    if os.environ.get("ISOTROPY_Z2JH"):
        pytest.fail(where)
    pytest.skip(where)


def deep_merge(base: dict, override: dict) -> dict:
    """Helm's merge of values: mappings merge key by key, anything else replaces, null deletes."""
    merged = copy.deepcopy(base)
    for key, value in override.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


@pytest.fixture(scope="module")
def chart() -> tuple[dict, dict]:
    import yaml

    folder = _chart_dir()
    return yaml.safe_load((folder / "values.yaml").read_text()), yaml.safe_load((folder / "values.schema.yaml").read_text())


SET_FILE = re.compile(r"--set-file hub\.extraFiles\.([\w-]+)\.stringData=(\S+)")


@pytest.fixture(scope="module")
def config() -> dict:
    """The config as the documented ``helm upgrade`` gives it: the file, plus its ``--set-file`` options."""
    import yaml

    text = (K8S / "config.yaml").read_text()
    values = yaml.safe_load(text)
    for name, path in SET_FILE.findall(text):
        values["hub"]["extraFiles"][name]["stringData"] = (ROOT / path).read_text()
    return values


def _errors(values: dict, schema: dict) -> list[str]:
    import jsonschema

    validator = jsonschema.Draft7Validator(schema)
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(values)]


def test_deep_merge_follows_helm() -> None:
    base = {"a": {"b": 1, "c": 2}, "d": [1, 2], "e": 3}
    assert deep_merge(base, {"a": {"b": 5}, "d": [9], "e": None}) == {"a": {"b": 5, "c": 2}, "d": [9]}
    assert base == {"a": {"b": 1, "c": 2}, "d": [1, 2], "e": 3}


def test_the_class_config_validates_against_the_chart_schema(chart, config) -> None:
    defaults, schema = chart
    assert _errors(defaults, schema) == [], "the chart's own defaults do not validate: wrong schema version?"
    assert _errors(deep_merge(defaults, config), schema) == []


@pytest.mark.parametrize("path", [("singleuser", "memory", "limt"), ("cull", "timout"), ("hub", "extraFile")])
def test_a_misspelt_key_is_an_error(chart, config, path) -> None:
    defaults, schema = chart
    broken = copy.deepcopy(config)
    node = broken
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = "1G"
    errors = _errors(deep_merge(defaults, broken), schema)
    assert any(path[-1] in e for e in errors), errors


def _bytes(size: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)([KMGT]?)i?", str(size)).groups()
    return float(number) * 1024 ** " KMGT".index(unit or " ")


def test_the_config_gives_every_server_what_the_class_server_gives_it(config) -> None:
    single = config["singleuser"]
    assert _bytes(single["memory"]["guarantee"]) <= _bytes(single["memory"]["limit"])
    assert single["extraEnv"]["OPENBLAS_NUM_THREADS"] == "1"
    from shared.ahead import DRAW_AHEAD

    assert single["extraEnv"][DRAW_AHEAD] == "0", "the class's live explorers would draw ahead"
    mounts = {m["mountPath"]: m for m in single["storage"]["extraVolumeMounts"]}
    assert mounts[single["extraEnv"]["ISOTROPY_STORE"]]["readOnly"] is True, "learners could write the study store"
    assert config["cull"]["enabled"] is True
    assert "cp -R -n" in " ".join(single["lifecycleHooks"]["postStart"]["exec"]["command"]), "a restart could overwrite edits"
    for name, file in config["hub"]["extraFiles"].items():  # the hub mounts each file where its module goes
        module = file["mountPath"].split("/usr/local/etc/jupyterhub/", 1)[1]
        assert file.get("stringData") == (ROOT / module).read_text(), f"{name}: no --set-file for it"


def test_the_class_view_is_a_hub_service_the_learners_servers_can_reach(config) -> None:
    hub, single = config["hub"], config["singleuser"]
    service = hub["services"]["class-view"]
    port = int(service["url"].rsplit(":", 1)[1])
    assert service["command"][:3] == ["python3", "-m", "classroom.class_view"] and str(port) in service["command"]
    assert service["command"][service["command"].index("--db") + 1].startswith("/srv/jupyterhub/"), "counts not on the hub's volume"
    assert single["extraEnv"]["ISOTROPY_CLASS_VIEW"] == f"http://hub:{port}/services/class-view/events"
    assert {p["port"] for p in hub["service"]["extraPorts"]} == {port}
    assert hub["loadRoles"]["class-view-teacher"]["scopes"] == ["access:services!service=class-view"]
    assert hub["loadRoles"]["class-view-teacher"]["users"] == hub["config"]["Authenticator"]["admin_users"]


def test_the_image_installs_the_course_as_the_class_server_does() -> None:
    from classroom.install import UV_SYNC

    dockerfile = (K8S / "Dockerfile").read_text()
    assert f"RUN {' '.join(UV_SYNC)}\n" in dockerfile
    assert "ENV UV_PROJECT_ENVIRONMENT=/opt/isotropy/venv" in dockerfile
