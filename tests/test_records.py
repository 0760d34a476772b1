"""Capture records: JSON round trip, validation that names the file, committed captures."""

from __future__ import annotations

import dataclasses
import json
import stat

import pytest

from conftest import ROOT
from kernelbook import CAPTURE_FORMAT
from kernelbook.common.records import (LAYOUT, SCHEMA, Capture, CaptureError, Environment, Event, Freshness, Kernel,
                                       Session, dumps, from_json, load, to_json, write_atomic)
from kernelbook.common.snippets import discover


def sample() -> Capture:
    return Capture(
        snippet="ch01/eager_profile",
        device="cuda",
        freshness=Freshness(source_hash="ab" * 32, format=CAPTURE_FORMAT, torch="2.13.0+cu128"),
        environment=Environment(
            device_kind="cuda", device_name="NVIDIA H100 80GB HBM3", torch="2.13.0+cu128", python="3.12.3",
            platform="Linux-x86_64", captured_at="2026-01-02T03:04:05Z", compute_capability="9.0",
            driver="570.1", cuda="12.8", triton="3.5.0", git_commit="0123456789ab-dirty",
            settings={"torch_threads": 8, "CUDA_VISIBLE_DEVICES": None},
        ),
        wall_time_s=0.125,
        stdout="line one\n  indented <b>&</b> 日本語\n\n",
        stderr="a warning\n",
        sessions=(
            Session(0, "cuda",
                    (Kernel("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, …>(…)", 2, 6.5),
                     Kernel("triton_poi_fused_add_relu_0", 1, 3.25)),
                    3,
                    (Event("launch", "cudaLaunchKernel", 0.0, 4.0), Event("kernel", "triton_poi_fused_add_relu_0", 5.0, 3.25))),
            Session(1, "cuda", (), 0),
        ),
        data={"rows": [{"n": 100, "s": 1.5e-06}], "device": "cuda", "nested": {"empty": [], "none": None}},
        trace_files=("eager_profile.cuda.trace0.json.gz", "eager_profile.cuda.trace1.json.gz"),
    )


def test_round_trip():
    cap = sample()
    text = dumps(cap)
    assert text.endswith("\n")
    raw = json.loads(text)
    assert raw["schema"] == SCHEMA == f"kernelbook.capture/{LAYOUT}"
    assert raw["stdout"] == ["line one", "  indented <b>&</b> 日本語", ""]  # one line per line: readable diffs
    back = from_json(raw, "x.json")
    assert back == cap
    assert dumps(back) == text
    assert json.loads(json.dumps(to_json(cap))) == raw  # the compact layout is plain JSON
    assert back.last_session.index == 1
    assert back.sessions[0].kernel_time_us == pytest.approx(9.75)


def test_round_trip_empty_output_and_no_data():
    cap = dataclasses.replace(sample(), stdout="", stderr="", data=None, sessions=(), trace_files=())
    back = from_json(json.loads(dumps(cap)), "x.json")
    assert back == cap
    assert back.last_session is None


def test_load_and_write_atomic(tmp_path):
    path = tmp_path / "captures" / "eager_profile.cuda.json"
    write_atomic(path, dumps(sample()).encode("utf-8"))
    assert load(path) == sample()
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    write_atomic(path, b"{}")  # replaces in one step, leaves no temporary files behind
    assert path.read_bytes() == b"{}"
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_schema_mismatch_names_file(tmp_path):
    raw = to_json(sample())
    raw["schema"] = "kernelbook.capture/999"
    with pytest.raises(CaptureError, match=r"old\.json.*schema.*kernelbook\.capture/999"):
        from_json(raw, "old.json")
    raw.pop("schema")
    with pytest.raises(CaptureError, match=r"old\.json.*schema"):
        from_json(raw, "old.json")


def broken(breakage: str):
    """A capture's JSON broken in one way the reader must refuse."""
    raw = json.loads(json.dumps(to_json(sample())))
    if breakage == "no_sessions":
        del raw["sessions"]
    elif breakage == "kernel_count_text":
        raw["sessions"][0]["kernels"][0]["count"] = "two"
    elif breakage == "unknown_field":
        raw["environment"]["colour"] = "blue"
    elif breakage == "unknown_top_level_field":  # e.g. an older layout's "trace_file"
        raw["trace_file"] = "trace0.json.gz"
    elif breakage == "bad_device":
        raw["device"] = "tpu"
    elif breakage == "cpu_labelled_cuda":  # a CPU run shown as a GPU one
        raw["environment"]["device_kind"] = "cpu"
    elif breakage == "other_schema":
        raw["schema"] = "kernelbook.capture/999"
    else:
        raw = [raw]
    return raw


BREAKAGES = ["no_sessions", "kernel_count_text", "unknown_field", "unknown_top_level_field", "bad_device", "not_object"]


@pytest.mark.parametrize("breakage", BREAKAGES)
def test_malformed_names_file(breakage):
    with pytest.raises(CaptureError, match=r"^snippets/ch01/captures/x\.cuda\.json: "):
        from_json(broken(breakage), "snippets/ch01/captures/x.cuda.json")


def test_load_bad_files_name_the_file(tmp_path):
    broken = tmp_path / "broken.cpu.json"
    broken.write_text('{"schema": "kernelbook.capture/1", ', encoding="utf-8")
    with pytest.raises(CaptureError, match=r"broken\.cpu\.json: not valid JSON"):
        load(broken)
    with pytest.raises(CaptureError, match=r"missing\.cpu\.json: cannot read"):
        load(tmp_path / "missing.cpu.json")


def test_committed_captures_load():
    loaded = 0
    for snippet in discover(ROOT):
        for device in ("cuda", "cpu"):
            path = snippet.capture_path(device)
            if not path.exists():
                continue
            cap = load(path)  # CaptureError here: re-run `kernelbook capture --device cpu`
            loaded += 1
            assert cap.snippet == snippet.id and cap.device == device
            assert cap.environment.device_kind == device
            assert cap.freshness.format == CAPTURE_FORMAT
            assert len(cap.trace_files) == len(cap.sessions), f"{path}: one trace per session"
            for name in cap.trace_files:
                assert (path.parent / name).is_file(), name
            assert dumps(cap) == path.read_text(encoding="utf-8")  # written by dumps, untouched since
    assert loaded >= 5


def test_committed_profile_captures_have_kernels():
    eager = load(ROOT / "snippets/ch01/captures/eager_profile.cpu.json")
    compiled = load(ROOT / "snippets/ch01/captures/compiled_profile.cpu.json")
    assert [k.name for k in eager.last_session.kernels] == ["aten::add", "aten::clamp_min"]
    assert [k.name for k in compiled.last_session.kernels] == ["graph_0_cpp_fused_add_relu_0"]


def test_a_capture_whose_labels_disagree_is_refused(tmp_path):
    """A CPU run can never be shown as a GPU one, nor launches disagree with the kernel rows."""
    import json

    from conftest import ROOT
    from kernelbook.common.records import CaptureError, load

    raw = json.loads((ROOT / "snippets/ch01/captures/eager_profile.cpu.json").read_text())
    for edit, words in (
        (lambda r: r.update(device="cuda"), "says device 'cuda'"),
        (lambda r: r["sessions"][-1].update(launches=7), "counts 7 launches"),
    ):
        bad = json.loads(json.dumps(raw))
        edit(bad)
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(bad))
        with pytest.raises(CaptureError, match=words):
            load(path)


# ---------------------------------------------------------------- the published JSON Schema


def capture_schema() -> dict:
    import importlib.resources

    shipped = importlib.resources.files("kernelbook").joinpath("capture.schema.json")  # package data, as installed
    from kernelbook.common.records import SCHEMA_FILE

    assert shipped.is_file() and SCHEMA_FILE.is_file()
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def schema_errors(raw) -> list[str]:
    import jsonschema

    schema = capture_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(raw)]


def test_schema_names_this_format():
    schema = capture_schema()
    assert schema["title"] == SCHEMA and schema["properties"]["schema"]["const"] == SCHEMA


def test_every_committed_capture_matches_the_schema():
    checked = 0
    for path in sorted(ROOT.glob("snippets/*/captures/*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        assert schema_errors(raw) == [], path
        checked += 1
    assert checked >= 5


def test_schema_accepts_what_records_writes():
    assert schema_errors(json.loads(dumps(sample()))) == []
    assert schema_errors(json.loads(dumps(dataclasses.replace(sample(), data=None, sessions=(), trace_files=())))) == []


@pytest.mark.parametrize("breakage", BREAKAGES + ["cpu_labelled_cuda", "other_schema"])
def test_schema_and_records_refuse_the_same_captures(breakage):
    """What the reader refuses, the published schema refuses too (and says why)."""
    raw = broken(breakage)
    assert schema_errors(raw)
    with pytest.raises(CaptureError):
        from_json(raw, "x.cuda.json")


# ---------------------------------------------------------------- values a capture must never hold


def _set(path: str, value):
    """A change to a capture's JSON: the value at a dotted path (list indices as numbers)."""
    def change(raw):
        *parents, last = path.split(".")
        node = raw
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node[int(last) if isinstance(node, list) else last] = value
    return change


# (what is changed, the value, a word of the message): each must be refused on load with one line
BAD_VALUES = [
    ("stdout", "one string, not lines", "stdout"),
    ("stdout", ["fine", 3], "stdout"),
    ("stderr", {"a": 1}, "stderr"),
    ("stdout", None, "stdout"),
    ("wall_time_s", -1.0, "wall_time_s"),
    ("wall_time_s", "0.5", "wall_time_s"),
    ("wall_time_s", True, "wall_time_s"),
    ("sessions.0.kernels.0.count", -1, "count"),
    ("sessions.0.kernels.0.count", 1.5, "count"),
    ("sessions.0.kernels.0.count", "2", "count"),
    ("sessions.0.kernels.0.time_us", -3.0, "time_us"),
    ("sessions.0.launches", -3, "launches"),
    ("sessions.0.index", -1, "index"),
    ("sessions.0.events.0.dur_us", -1.0, "dur_us"),
    ("sessions.0.events.0.ts_us", "soon", "ts_us"),
    ("sessions.0.events.0.kind", "magic", "kind"),
    ("sessions.0.kernels.0.name", 7, "name"),
    ("sessions.0.kernels.0.name", "", "name"),
    ("freshness.format", "1", "format"),
    ("freshness.source_hash", "not-a-hash", "source_hash"),
    ("freshness.torch", None, "torch"),
    ("environment.device_name", 5, "device_name"),
    ("environment.device_name", "", "device_name"),
    ("environment.torch", ["2.13"], "torch"),
    ("environment.captured_at", "yesterday", "captured_at"),
    ("environment.cuda", 12.8, "cuda"),
    ("environment.settings", ["threads"], "settings"),
    ("snippet", "ch01/has space", "snippet"),
    ("snippet", 'ch01/quo"te', "snippet"),
    ("trace_files", "x.cuda.trace0.json.gz", "trace_files"),
    ("trace_files", ["../../etc/passwd"], "trace_files"),
]
# Not JSON numbers at all: Python's json reads them unless told not to.
BAD_NUMBERS = [("wall_time_s", "NaN"), ("wall_time_s", "Infinity"), ("wall_time_s", "-Infinity"), ("wall_time_s", "1e400"),
               ("sessions.0.kernels.0.time_us", "NaN"), ("sessions.0.events.0.ts_us", "Infinity"), ("data", "NaN")]


@pytest.mark.parametrize("where, value, word", BAD_VALUES, ids=[f"{w}={v!r}" for w, v, _ in BAD_VALUES])
def test_invalid_values_are_refused_on_load(tmp_path, where, value, word):
    raw = json.loads(json.dumps(to_json(sample())))
    _set(where, value)(raw)
    path = tmp_path / "x.cuda.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(CaptureError) as caught:
        load(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and word in message and "\n" not in message, message


@pytest.mark.parametrize("where, literal", BAD_NUMBERS)
def test_nan_and_infinity_are_refused_on_load(tmp_path, where, literal):
    raw = json.loads(json.dumps(to_json(sample())))
    _set(where, 123456.5)(raw)
    path = tmp_path / "x.cuda.json"
    path.write_text(json.dumps(raw).replace("123456.5", literal), encoding="utf-8")
    with pytest.raises(CaptureError, match=rf"^{path}: .*{literal.lstrip('-')}"):
        load(path)


def test_unusable_files_are_refused_on_load(tmp_path):
    """Not UTF-8, nested too deeply, not a regular file: one line naming the file, never a traceback or a hang."""
    import os

    good = dumps(sample()).encode("utf-8")
    cases = {
        "latin1.cuda.json": good.replace("日本語".encode(), "caf\xe9".encode("latin-1")),
        "deep.cuda.json": b"[" * 100_000 + b"]" * 100_000,
        "bom.cuda.json": b"\xff\xfe" + good,
    }
    words = {"latin1.cuda.json": "not UTF-8", "deep.cuda.json": "nested too deeply", "bom.cuda.json": "not UTF-8"}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    fifo = tmp_path / "fifo.cuda.json"
    os.mkfifo(fifo)
    words[fifo.name] = "not a regular file"
    (tmp_path / "folder.cuda.json").mkdir()
    words["folder.cuda.json"] = "not a regular file"
    for name, word in words.items():
        with pytest.raises(CaptureError) as caught:
            load(tmp_path / name)
        assert str(caught.value).startswith(f"{tmp_path / name}: ") and word in str(caught.value), str(caught.value)


def test_the_schema_states_the_same_limits():
    """Every value refused above is refused by the published schema too (where a schema can say it)."""
    import jsonschema

    schema = capture_schema()
    for where, value, _ in BAD_VALUES:
        raw = json.loads(json.dumps(to_json(sample())))
        _set(where, value)(raw)
        assert list(jsonschema.Draft202012Validator(schema).iter_errors(raw)), (where, value)


# ---------------------------------------------------------------- previous: what a capture replaced, in brief


def with_previous() -> Capture:
    from kernelbook.common.changes import summarize

    older = dataclasses.replace(sample(), environment=dataclasses.replace(sample().environment, torch="2.12.0+cu128"))
    return dataclasses.replace(sample(), previous=summarize(older))


def test_previous_round_trips_and_matches_the_schema():
    cap = with_previous()
    raw = json.loads(dumps(cap))
    assert raw["previous"]["torch"] == "2.12.0+cu128"
    assert raw["previous"]["sessions"][0] == {"launches": 3, "kernel_time_us": 9.75, "kernels": [
        {"name": "vectorized_elementwise_kernel<CUDAFunctor_add>", "count": 2}, {"name": "triton_poi_fused_add_relu_0", "count": 1}]}
    assert from_json(raw, "x.json") == cap and schema_errors(raw) == []
    assert "previous" not in json.loads(dumps(sample()))  # a first capture writes no `previous` at all


def test_a_capture_without_previous_stays_valid():
    raw = json.loads(dumps(sample()))
    assert from_json(raw, "x.json").previous is None
    raw["previous"] = None
    assert from_json(raw, "x.json").previous is None and schema_errors(raw) == []


BAD_PREVIOUS = [
    ("previous.torch", 2, "previous.torch"),
    ("previous.device_name", "", "previous.device_name"),
    ("previous.sessions", "none", "previous.sessions"),
    ("previous.sessions.0.launches", 4, "counts 4 launches"),
    ("previous.sessions.0.kernel_time_us", -1.0, "kernel_time_us"),
    ("previous.sessions.0.kernels.0.count", 0, "count"),
    ("previous.sessions.0.kernels.0.name", "", "name"),
    ("previous.sessions.0.extra", 1, "unknown field"),
]


@pytest.mark.parametrize("where, value, word", BAD_PREVIOUS, ids=[w for w, _, _ in BAD_PREVIOUS])
def test_a_malformed_previous_is_refused_naming_the_field(tmp_path, where, value, word):
    raw = json.loads(dumps(with_previous()))
    _set(where, value)(raw)
    path = tmp_path / "x.cuda.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(CaptureError) as caught:
        load(path)
    assert str(caught.value).startswith(f"{path}: ") and word in str(caught.value)
    if "counts 4" not in word:  # what a schema cannot state: launches that add up
        assert schema_errors(raw)
