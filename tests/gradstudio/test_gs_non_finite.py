"""Numbers JSON cannot write (``float("-inf")`` in every attention mask): a parameter or
literal data holds them by name ("inf", "-inf", "nan"), a file keeps them, PyTorch source
spells them ``float('-inf')``, and a file holding anything else there is refused."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.fileformat import DocumentError, dumps, load_document, loads, to_json
from gradstudio.interchange.pytorch_export import export_script
from gradstudio.interchange.pytorch_import import ImportProblem, import_snippet
from gradstudio.params import checker
from tests.gradstudio.snippets import NON_FINITE


@pytest.mark.parametrize(
    ("kind", "value", "held"),
    [
        ("number", float("-inf"), "-inf"),
        ("number", float("inf"), "inf"),
        ("number", float("nan"), "nan"),
        ("number", "-inf", "-inf"),
        ("number", 2.5, 2.5),
        ("float", float("-inf"), "-inf"),
        ("optional_number", float("inf"), "inf"),
        ("data", [[1.0, float("-inf")], [float("nan"), 2]], [[1.0, "-inf"], ["nan", 2]]),
    ],
)
def test_a_non_finite_number_is_held_by_its_name(kind: str, value: object, held: object) -> None:
    assert checker(kind)(value) == held


@pytest.mark.parametrize(
    ("kind", "value", "message"),
    [
        ("number", "Infinity", "expected a number, got 'Infinity'"),
        ("number", "-INF", "expected a number, got '-INF'"),
        ("number", "1.5", "expected a number, got '1.5'"),
        ("float", "inf ", "expected a number, got 'inf '"),
        ("data", [1.0, "infinity"], "data holds numbers and lists only, got 'infinity'"),
        ("data", ["nan", [1.0]], "data is not rectangular"),
    ],
)
def test_any_other_text_is_refused(kind: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        checker(kind)(value)


def test_a_document_with_minus_inf_saves_loads_and_evaluates(tmp_path: Path) -> None:
    doc = import_snippet(NON_FINITE)
    text = dumps(doc)
    assert '"value": "-inf"' in text and '"min": "-inf"' in text
    assert '"data": [1.0,"inf","nan"]' in text  # a literal's numbers on one line
    path = tmp_path / "masks.gstudio"
    path.write_text(text, "utf-8")
    again = load_document(path)
    assert to_json(again) == to_json(doc)
    ev = evaluate(again)
    assert ev.ok, ev.errors
    facts = {n["label"]: n for n in ev.to_json()["nodes"]}
    assert facts["s"]["value"][0][1] == -math.inf
    assert math.isnan(facts["z"]["value"][2])


def test_the_exported_script_spells_them_as_python() -> None:
    script = export_script(import_snippet(NON_FINITE), facts=False)
    assert "torch.masked_fill(x, m, float('-inf'))" in script
    assert "torch.clamp(x, float('-inf'), 3.0)" in script  # min and max are ports
    assert "torch.tensor([1.0, float('inf'), float('nan')])" in script
    assert "y[0, 0] = float('inf')" in script
    assert "torch.add(x, float('-inf'))" in script
    compile(script, "<export>", "exec")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"Infinity"', "expected a number, got 'Infinity'"),
        ("-Infinity", "-Infinity is not a number JSON allows"),
        ("NaN", "NaN is not a number JSON allows"),
        ('["-inf"]', "expected a number, got ['-inf']"),
    ],
)
def test_a_hostile_file_is_refused_with_a_clear_message(value: str, message: str) -> None:
    doc = import_snippet(NON_FINITE)
    text = dumps(doc).replace('"value": "-inf"', f'"value": {value}', 1)
    assert text != dumps(doc)
    with pytest.raises(DocumentError) as err:
        loads(text, "hostile.gstudio")
    assert message in str(err.value)
    assert str(err.value).startswith("hostile.gstudio: ")


def test_float_of_a_text_that_is_no_number_is_refused_at_its_line() -> None:
    with pytest.raises(ImportProblem, match="float\\(\\) is supported on a number"):
        import_snippet('import torch\nx = torch.ones(2)\ny = x.masked_fill(x > 0, float("x"))\n')


def test_the_file_holds_no_bare_infinity() -> None:
    json.loads(dumps(import_snippet(NON_FINITE)), parse_constant=pytest.fail)


def test_float32_data_is_written_short_and_reads_back_the_same_values() -> None:
    """``0.1`` in float32 is written ``0.1``, not float64's ``0.10000000149011612``; loading
    gives the very same float32 numbers."""
    values = "[0.1, 1e-45, 3.4028235e38, -0.0]"
    doc = import_snippet(f"import torch\nx = torch.tensor({values}, dtype=torch.float32)\n")
    text = dumps(doc)
    assert '"data": [0.1,1e-45,3.4028235e+38,-0.0]' in text
    (node,) = [n for n in loads(text).nodes() if n.type_id == "torch.tensor"]
    want = np.array([0.1, 1e-45, 3.4028235e38, -0.0], np.float32)
    assert np.array_equal(np.asarray(node.params["data"], np.float32), want)
