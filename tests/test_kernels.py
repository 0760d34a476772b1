"""Kernel extraction against real A100 traces, CPU traces made here, and the CLI on bad input."""

from __future__ import annotations

import gzip
import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from conftest import BIG_TRACE, ROOT, SIMPLE_ADD, run_cli
from kernelbook.capture.kernels import TraceError, extract, is_cuda_trace, load_trace
from kernelbook.common.kernel_names import short_name

NOT_KERNELS = ("gpu_memcpy", "gpu_memset", "cuda_sync", "gpu_user_annotation")


def raw_events(path: Path) -> list[dict]:
    """The trace read with nothing but gzip and json: the independent ground truth."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)["traceEvents"]


def kernel_truth(path: Path) -> tuple[Counter, dict[str, float]]:
    counts: Counter = Counter()
    times: dict[str, float] = defaultdict(float)
    for e in raw_events(path):
        if isinstance(e, dict) and e.get("cat") == "kernel" and e.get("ph") == "X":
            counts[e["name"]] += 1
            times[e["name"]] += float(e.get("dur", 0))
    return counts, times


def extract_matching_truth(path: Path, launches: int, names: int):
    """Extract a real trace and check it against counts read independently from its JSON."""
    found = extract(load_trace(path))
    assert found.device_kind == "cuda"
    assert found.launches == launches
    assert len(found.kernels) == names
    counts, times = kernel_truth(path)
    assert {k.name: k.count for k in found.kernels} == dict(counts)
    for k in found.kernels:
        assert k.time_us == pytest.approx(times[k.name])
    return found


def by_substring(kernels, text: str):
    found = [k for k in kernels if text in k.name]
    assert len(found) == 1, f"expected one kernel name containing {text!r}, got {[k.name for k in found]}"
    return found[0]


# ---------------------------------------------------------------- real CUDA traces


def test_simple_add_trace(real_traces):
    found = extract_matching_truth(real_traces / SIMPLE_ADD, launches=4, names=2)
    assert [k.count for k in found.kernels] == [2, 2]
    assert "uniform" in by_substring(found.kernels, "distribution_elementwise_grid_stride_kernel").name
    by_substring(found.kernels, "CUDAFunctor_add")


def test_big_trace_counts(real_traces):
    path = real_traces / BIG_TRACE
    found = extract_matching_truth(path, launches=79, names=16)
    assert sum(k.count for k in found.kernels) == 79
    # Exact counts read off the trace by hand (see the fixture README's table).
    assert by_substring(found.kernels, "launch_clamp_scalar").count == 14  # relu
    assert by_substring(found.kernels, "CUDAFunctor_add").count == 10
    assert by_substring(found.kernels, "nchwToNhwcKernel").count == 12
    assert by_substring(found.kernels, "max_pool_forward_nchw").count == 6
    assert by_substring(found.kernels, "ampere_sgemm_32x32_sliced1x4_tn").count == 6
    assert by_substring(found.kernels, "fused_dropout_kernel_vec").count == 4
    assert by_substring(found.kernels, "distribution_elementwise_grid_stride_kernel").count == 1
    # In order of first launch.
    kernel_events = sorted((e for e in raw_events(path) if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    assert found.kernels[0].name == kernel_events[0]["name"]
    assert sum(1 for e in found.events if e.kind == "kernel") == 79


def test_memcpy_memset_sync_never_counted(real_traces):
    path = real_traces / BIG_TRACE
    events = raw_events(path)
    other = Counter(e.get("cat") for e in events if isinstance(e, dict) and e.get("cat") in NOT_KERNELS)
    assert other == {"gpu_memcpy": 16, "gpu_memset": 3, "cuda_sync": 41}  # they are there...
    other_names = {e["name"] for e in events if isinstance(e, dict) and e.get("cat") in NOT_KERNELS}
    found = extract(load_trace(path))
    assert not other_names & {k.name for k in found.kernels}  # ...and never counted
    assert not any(k.name.startswith(("Memcpy", "Memset")) for k in found.kernels)


def test_compiled_graph_annotation_not_counted(real_traces):
    """A ``## Call CompiledFxGraph ##`` GPU annotation spans kernels; it must not count as one."""
    trace = load_trace(real_traces / SIMPLE_ADD)
    kernels = [e for e in trace["traceEvents"] if e.get("cat") == "kernel"]
    start = min(e["ts"] for e in kernels)
    end = max(e["ts"] + e["dur"] for e in kernels)
    trace["traceEvents"].append({"ph": "X", "cat": "gpu_user_annotation", "name": "## Call CompiledFxGraph abc ##",
                                 "pid": kernels[0]["pid"], "tid": kernels[0]["tid"], "ts": start, "dur": end - start})
    found = extract(trace)
    assert found.launches == 4 and len(found.kernels) == 2


def test_is_cuda_trace(real_traces, cpu_traces):
    for name in (SIMPLE_ADD, BIG_TRACE):
        trace = load_trace(real_traces / name)
        assert is_cuda_trace(trace)
        trace.pop("deviceProperties", None)  # decided by the GPU-side events alone too
        assert is_cuda_trace(trace)
    for path in cpu_traces.values():
        trace = load_trace(path)
        assert not is_cuda_trace(trace), path


def test_short_name_on_real_names(real_traces):
    names = {e["name"] for name in (SIMPLE_ADD, BIG_TRACE) for e in raw_events(real_traces / name) if e.get("cat") == "kernel"}
    assert len(names) == 17
    shorts = {name: short_name(name) for name in names}
    for name, short in shorts.items():
        assert short, name
        assert "(" not in short and ")" not in short, short
        assert not short.startswith("void ") and "anonymous namespace" not in short, short
        assert len(short) <= 60, short
    values = set(shorts.values())
    assert "vectorized_elementwise_kernel<CUDAFunctor_add>" in values
    assert "elementwise_kernel<CUDAFunctor_add>" in values
    assert "vectorized_elementwise_kernel<launch_clamp_scalar>" in values
    assert "ampere_sgemm_32x32_sliced1x4_tn" in values
    assert short_name("graph_0_cpp_fused_add_relu_0") == "cpp_fused_add_relu_0"
    assert short_name("x" * 200, limit=60) == "x" * 59 + "…"


# ---------------------------------------------------------------- CPU traces made here


def test_cpu_eager_is_two_kernels(cpu_traces):
    found = extract(load_trace(cpu_traces["eager"]))
    assert found.device_kind == "cpu"
    assert [k.name for k in found.kernels] == ["aten::add", "aten::clamp_min"]
    assert [k.count for k in found.kernels] == [1, 1]
    assert found.launches == 2


def test_cpu_compiled_is_one_fused_kernel(cpu_traces):
    found = extract(load_trace(cpu_traces["compiled"]))
    assert found.device_kind == "cpu"
    assert found.launches == 1
    assert len(found.kernels) == 1
    (kernel,) = found.kernels
    assert "cpp_fused_add_relu_0" in kernel.name
    assert short_name(kernel.name) == "cpp_fused_add_relu_0"
    # Nothing from eager leaks in: no aten op ran the work.
    assert not any(k.name.startswith("aten::") for k in found.kernels)


@pytest.mark.parametrize("case,expected", [
    ("add_scalar", ["aten::add"]),  # not the aten::copy_ that wraps the 1
    ("sum", ["aten::sum"]),  # not the aten::fill_ that zeroes its output
    ("where", ["aten::gt", "aten::where"]),
    ("convert", ["aten::_to_copy"]),  # a conversion of its own is one kernel
    ("mm", ["aten::mm"]),  # not the aten::resolve_conj it calls on its inputs
    ("triton", ["add_kernel"]),  # a `triton: NAME` range is one launch of NAME; its copies are not counted
])
def test_cpu_ops_that_prepare_their_arguments(cpu_traces, case, expected):
    found = extract(load_trace(cpu_traces[case]))
    assert [k.name for k in found.kernels] == expected
    assert found.launches == len(expected)


def test_a_real_interpreted_triton_launch_is_one_kernel_not_the_interpreters_copies(cpu_traces):
    """A trace of a real launch under TRITON_INTERPRET=1 (made by the fixture's run, not written here):
    the interpreter's argument copies sit inside the `triton: add_kernel` range and are not counted."""
    events = [e for e in raw_events(cpu_traces["triton"]) if isinstance(e, dict) and e.get("ph") == "X"]
    (launch,) = [e for e in events if e.get("cat") == "user_annotation" and e["name"] == "triton: add_kernel"]
    start, end = float(launch["ts"]), float(launch["ts"]) + float(launch["dur"])
    inside = [e["name"] for e in events if e.get("cat") == "cpu_op" and e.get("tid") == launch.get("tid")
              and start <= float(e["ts"]) and float(e["ts"]) + float(e.get("dur", 0)) <= end]
    assert inside.count("aten::copy_") == 3, inside  # the interpreter copies each tensor argument back (a, b, out)
    found = extract({"traceEvents": events}, device_kind="cpu")
    assert [(k.name, k.count) for k in found.kernels] == [("add_kernel", 1)] and found.launches == 1
    (kernel,) = [e for e in found.events if e.kind == "kernel"]
    assert (kernel.dur_us, kernel.name) == (pytest.approx(float(launch["dur"]), abs=1e-3), "add_kernel")  # the range's own time
    # without the range, the interpreter's copies would pass for the kernels
    bare = extract({"traceEvents": [e for e in events if e is not launch]}, device_kind="cpu")
    assert [k.name for k in bare.kernels] == ["aten::copy_"] and bare.launches == 3


@pytest.mark.parametrize("trace", sorted((ROOT / "snippets" / "ch04" / "captures").glob("*.cpu.trace*.json.gz")), ids=lambda p: p.name)
def test_committed_interpreted_traces_give_what_their_captures_say(trace):
    """The real traces kernelbook capture kept for chapter 4: each session's `triton: NAME` range is one
    launch of NAME, and the rule gives back the kernel rows the capture recorded."""
    from kernelbook.common.records import load

    capture = load(trace.parent / (trace.name.split(".cpu.")[0] + ".cpu.json"))
    index = int(trace.name.rsplit(".trace", 1)[1].split(".")[0])
    found = extract(load_trace(trace), device_kind="cpu")
    assert [(k.name, k.count) for k in found.kernels] == [(k.name, k.count) for k in capture.sessions[index].kernels]
    ranges = [e["name"][len("triton: "):] for e in raw_events(trace) if isinstance(e, dict) and e.get("cat") == "user_annotation"
              and str(e.get("name", "")).startswith("triton: ")]
    assert [k.name for k in found.kernels if k.name in ranges] == ranges  # every range is a launch, under its name


def _op(name, ts, dur, tid=1):
    return {"ph": "X", "cat": "cpu_op", "name": name, "ts": ts, "dur": dur, "pid": 1, "tid": tid}


def test_cpu_rule_on_nested_ops():
    events = [
        _op("aten::relu", 0, 10), _op("aten::clamp_min", 1, 8),  # composite -> the inner op
        _op("aten::add", 20, 10), _op("aten::to", 21, 5), _op("aten::_to_copy", 22, 3),
        _op("aten::empty_strided", 22.5, 0.5), _op("aten::copy_", 23, 1),  # add's own scalar cast
        _op("aten::copy_", 40, 5),  # a copy the user asked for
        _op("aten::empty", 50, 1), _op("aten::view", 52, 1),  # no work at all
        _op("aten::mul", 0, 4, tid=2),  # same time, another thread: its own kernel
        _op("Torch-Compiled Region: 0/0", 60, 20), _op("## Call CompiledFxGraph x ##", 61, 18),
        _op("graph_0_cpp_fused_add_relu_0", 62, 16),
    ]
    found = extract({"traceEvents": events}, device_kind="cpu")
    assert [(k.name, k.count) for k in found.kernels] == [
        ("aten::mul", 1), ("aten::clamp_min", 1), ("aten::add", 1), ("aten::copy_", 1), ("graph_0_cpp_fused_add_relu_0", 1)]
    assert found.launches == 5


def _range(name, ts, dur, tid=1):
    return {"ph": "X", "cat": "user_annotation", "name": name, "ts": ts, "dur": dur, "pid": 1, "tid": tid}


def test_cpu_rule_on_metadata_ops_and_triton_ranges():
    events = [
        _op("aten::matmul", 0, 10), _op("aten::mm", 1, 8), _op("aten::resolve_conj", 2, 1), _op("aten::resolve_neg", 4, 1),
        _op("aten::conj", 12, 1), _op("aten::_conj", 14, 1),  # on their own: no work at all
        _range("triton: add_kernel", 20, 30), _op("aten::empty_like", 21, 2), _op("aten::copy_", 24, 5), _op("aten::copy_", 30, 5),
        _range("triton: add_kernel", 60, 10), _op("aten::copy_", 61, 5),
        _range("triton: ", 80, 10), _op("aten::mul", 81, 5),  # no name: not a launch, its op counts
        _range("my own range", 100, 10), _op("aten::add", 101, 5),  # any other annotation is transparent
    ]
    found = extract({"traceEvents": events}, device_kind="cpu")
    assert [(k.name, k.count) for k in found.kernels] == [("aten::mm", 1), ("add_kernel", 2), ("aten::mul", 1), ("aten::add", 1)]
    assert found.launches == 5
    kernels = [(e.name, e.ts_us, e.dur_us) for e in found.events if e.kind == "kernel"]
    assert kernels[1:3] == [("add_kernel", 20.0, 30.0), ("add_kernel", 60.0, 10.0)]  # the range's own time
    ops = [e.name for e in found.events if e.kind == "op"]
    assert ops == ["aten::matmul", "aten::conj", "aten::_conj", "triton: add_kernel", "triton: add_kernel", "aten::mul", "aten::add"]


def test_compiled_regions_graph_calls_and_the_eager_ops_between_them():
    """A graph break's timeline: two regions (the second inside the first), a graph call in
    each, and the ``aten::`` ops Python ran between them; nothing else is a region event."""
    events = [
        _op("TorchDynamo Cache Lookup", 0, 2),
        _op("Torch-Compiled Region: 0/0", 3, 100),
        _op("## Call CompiledFxGraph a ##", 5, 20), _op("graph_0_cpp_fused_abs_gt_max_0", 6, 18),
        _op("aten::empty", 7, 1),  # inside a graph call: inductor's own work, not eager
        _op("aten::is_nonzero", 30, 6), _op("aten::item", 31, 4),  # `if s > 1:` -> only the outermost aten op
        _op("Pregraph bytecode", 38, 1),  # not an aten op
        _range("Torch-Compiled Region: 1/0", 40, 60),  # a user_annotation is CPU-side too
        _op("## Call CompiledFxGraph b ##", 45, 50), _op("graph_1_cpp_fused_div_relu_0", 46, 48),
        _op("aten::add", 120, 5),  # after every region: not eager
        {"ph": "X", "cat": "gpu_user_annotation", "name": "Torch-Compiled Region: 0/0", "ts": 3, "dur": 100, "pid": 0, "tid": 7},
        _op("aten::mul", 50, 5, tid=2),  # same time, another thread, no region there
    ]
    found = extract({"traceEvents": events}, device_kind="cpu")
    drawn = [(e.kind, e.name, e.ts_us, e.dur_us) for e in found.events if e.kind in ("region", "graph", "eager")]
    assert drawn == [
        ("region", "Torch-Compiled Region: 0/0", 3.0, 100.0),
        ("graph", "## Call CompiledFxGraph a ##", 5.0, 20.0),
        ("eager", "aten::is_nonzero", 30.0, 6.0),
        ("region", "Torch-Compiled Region: 1/0", 40.0, 60.0),
        ("graph", "## Call CompiledFxGraph b ##", 45.0, 50.0),
    ]
    # the kernels are counted as before: the ranges add pictures, not kernels
    assert [k.name for k in found.kernels] == ["graph_0_cpp_fused_abs_gt_max_0", "graph_1_cpp_fused_div_relu_0", "aten::mul", "aten::add"]


def test_compiled_regions_in_a_real_graph_break_trace():
    """The chapter-3 capture of a graph break: its session events are the trace's ranges, read
    again here with gzip and json alone."""
    folder = ROOT / "snippets" / "ch03" / "captures"
    for index, regions in ((0, 2), (1, 1)):
        path = folder / f"graph_break.cpu.trace{index}.json.gz"
        raw = [e for e in raw_events(path) if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
        origin = min(float(e["ts"]) for e in raw)
        want = {
            "region": [e for e in raw if e["name"].startswith("Torch-Compiled Region")],
            "graph": [e for e in raw if e["name"].startswith("## Call CompiledFxGraph")],
        }
        found = extract(load_trace(path), device_kind="cpu")
        for kind, truth in want.items():
            got = [(e.name, e.ts_us, e.dur_us) for e in found.events if e.kind == kind]
            assert got == [(e["name"], round(float(e["ts"]) - origin, 3), round(float(e["dur"]), 3)) for e in truth]
        assert len(want["region"]) == regions == len(want["graph"])
        eager = [e.name for e in found.events if e.kind == "eager"]
        assert eager == (["aten::is_nonzero"] if regions == 2 else [])


def test_cpu_traces_through_cli(cpu_traces):
    for name, expected in (("eager", ["aten::add", "aten::clamp_min"]), ("compiled", None)):
        done = run_cli("kernels", str(cpu_traces[name]), "--json")
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        assert out["device_kind"] == "cpu"
        if expected:
            assert [k["name"] for k in out["kernels"]] == expected and out["launches"] == 2
        else:
            assert [k["short_name"] for k in out["kernels"]] == ["cpp_fused_add_relu_0"] and out["launches"] == 1


# ---------------------------------------------------------------- the CLI


def _bad_inputs(tmp: Path, real_traces: Path) -> dict[str, tuple[Path, str]]:
    """name -> (file, a word the one-line message must contain). The truncated gzip is half of a real
    trace from the checkout's fixtures (``real_traces``), never a made-up stand-in."""
    gz = (real_traces / SIMPLE_ADD).read_bytes()
    cases = {
        "not_json": ("notes.json", b"this is not json at all\n", "not JSON"),
        "truncated_gzip": ("cut.json.gz", gz[: len(gz) // 2], "gzip"),
        "no_trace_events": ("other.json", b'{"foo": [1, 2, 3]}', "traceEvents"),
        "empty_trace": ("empty.json", b'{"traceEvents": []}', "empty"),
        "capture_of_other_schema": ("old.cpu.json", b'{"schema": "kernelbook.capture/99", "snippet": "ch01/x"}', "schema"),
    }
    out = {}
    for key, (name, data, word) in cases.items():
        (tmp / name).write_bytes(data)
        out[key] = (tmp / name, word)
    out["missing"] = (tmp / "no-such-trace.json", "no such file")
    out["folder"] = (tmp / "a-folder.json", "cannot read")
    (tmp / "a-folder.json").mkdir()
    return out


@pytest.mark.parametrize("case", ["not_json", "truncated_gzip", "no_trace_events", "empty_trace", "missing", "folder",
                                  "capture_of_other_schema"])
def test_cli_bad_input_is_one_line_exit_2(tmp_path, real_traces, case):
    path, word = _bad_inputs(tmp_path, real_traces)[case]
    done = run_cli("kernels", str(path))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(path) in lines[0]
    assert word.lower() in lines[0].lower(), lines[0]
    assert done.stdout == ""
    if case != "capture_of_other_schema":
        with pytest.raises(TraceError, match=str(path.name)):
            load_trace(path)


def test_cli_json_on_real_trace(real_traces):
    done = run_cli("kernels", str(real_traces / BIG_TRACE), "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["launches"] == 79
    assert out["device_kind"] == "cuda"
    assert len(out["kernels"]) == 16
    assert sum(k["count"] for k in out["kernels"]) == 79
    for k in out["kernels"]:
        assert set(k) >= {"name", "count", "time_us", "short_name"}
    counts, _ = kernel_truth(real_traces / BIG_TRACE)
    assert {k["name"]: k["count"] for k in out["kernels"]} == dict(counts)


def test_cli_table_on_real_trace(real_traces):
    done = run_cli("kernels", str(real_traces / SIMPLE_ADD))
    assert done.returncode == 0, done.stderr
    assert "vectorized_elementwise_kernel<CUDAFunctor_add>" in done.stdout
    assert done.stdout.strip().splitlines()[-1].split()[0] == "4"


def test_cli_json_on_committed_capture():
    path = ROOT / "snippets/ch01/captures/eager_profile.cpu.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    done = run_cli("kernels", str(path), "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    last = raw["sessions"][-1]
    assert out["launches"] == last["launches"] == 2
    assert [k["name"] for k in out["kernels"]] == [k["name"] for k in last["kernels"]] == ["aten::add", "aten::clamp_min"]
    assert [k["count"] for k in out["kernels"]] == [1, 1]
    assert out["device_kind"] == "cpu"


# ---------------------------------------------------------------- the stderr rule


def test_only_the_profilers_usdt_start_and_stop_lines_are_dropped():
    from kernelbook.capture.stderr import kept_lines

    stderr = (
        "USDT:2026-11-30 15:43:58 5737:5737 SyncActivityProfilerHandler.cpp:52] profiler_start\n"
        "a warning the snippet caused\n"
        "USDT:2026-11-30 15:43:58 5737:5737 SyncActivityProfilerHandler.cpp:59] profiler_stop\n"
        "USDT:2026-11-30 15:43:58 5737:5737 SyncActivityProfilerHandler.cpp:59] something else\n"
        "  USDT:2026-11-30 15:43:58 5737:5737 SyncActivityProfilerHandler.cpp:52] profiler_start\n"
    )
    kept, dropped = kept_lines(stderr)
    assert dropped == 2
    assert kept == ["a warning the snippet caused",
                    "USDT:2026-11-30 15:43:58 5737:5737 SyncActivityProfilerHandler.cpp:59] something else",
                    "  USDT:2026-11-30 15:43:58 5737:5737 SyncActivityProfilerHandler.cpp:52] profiler_start"]
    assert kept_lines("") == ([], 0)


# ---------------------------------------------------------------- hostile files: one line, exit 2, bounded


def _event(**fields) -> dict:
    return {"ph": "X", "cat": "kernel", "name": "k", "ts": 1.0, "dur": 2.0, "pid": 1, "tid": 1, **fields}


def _trace(*events: dict) -> bytes:
    return json.dumps({"traceEvents": [_event(name="fine", ts=0.0), *events]}).encode()


def _without(key: str) -> dict:
    event = _event()
    del event[key]
    return event


def _gzip_bomb(size: int = 2 * 2**30) -> bytes:
    """A small gzip that inflates to ``size`` bytes of spaces after a JSON opening."""
    import zlib

    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b" " * 2**20
    out = [packer.compress(b'{"traceEvents": [')]
    out += [packer.compress(block) for _ in range(size // len(block))]
    return b"".join(out) + packer.flush()


# name -> (file name, content, a word of the one-line message)
HOSTILE_TRACES = {
    "nested_brackets": ("deep.json", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    "nested_in_a_trace": ("deep2.json", b'{"traceEvents": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
    "nested_gzipped": ("deep3.json.gz", gzip.compress(b"[" * 100_000 + b"]" * 100_000), "nested too deeply"),
    "dur_missing": ("nodur.json", _trace(_without("dur")), "without 'dur'"),
    "ts_missing": ("nots.json", _trace(_without("ts")), "without 'ts'"),
    "name_missing": ("noname.json", _trace(_without("name")), "without a name"),
    "dur_negative": ("neg.json", _trace(_event(dur=-5.0)), "dur is -5.0"),
    "dur_nan": ("nan.json", _trace(_event(dur=1.0)).replace(b'"dur": 1.0', b'"dur": NaN'), "NaN"),
    "dur_infinity": ("inf.json", _trace(_event(dur=1.0)).replace(b'"dur": 1.0', b'"dur": Infinity'), "Infinity"),
    "dur_too_large": ("big.json", _trace(_event(dur=1.0)).replace(b'"dur": 1.0', b'"dur": 1e400'), "1e400"),
    "dur_text": ("text.json", _trace(_event(dur="5")), "dur is '5'"),
    "dur_boolean": ("bool.json", _trace(_event(dur=True)), "dur is True"),
    "ts_nan": ("tsnan.json", _trace(_event(ts=1.0)).replace(b'"ts": 1.0', b'"ts": NaN'), "NaN"),
    "not_utf8": ("latin1.json", _trace(_event(name="caf")).replace(b'"caf"', b'"caf\xe9"'), "not UTF-8"),
    "utf16": ("utf16.json", _trace().decode().encode("utf-16"), "not UTF-8"),
    "capture_not_utf8": ("bad.cpu.json", (ROOT / "snippets/ch01/captures/eager_profile.cpu.json").read_bytes().replace(b"\"device_kind\"", b"\"device_kind\xff\xfe\"", 1), "not UTF-8"),
    "capture_stdout_string": ("str.cpu.json", json.dumps({**json.loads((ROOT / "snippets/ch01/captures/eager_profile.cpu.json").read_text()),
                                                          "stdout": "one string"}).encode(), "stdout"),
}


@pytest.mark.parametrize("case", HOSTILE_TRACES)
def test_hostile_files_are_one_line_exit_2(tmp_path, case):
    name, data, word = HOSTILE_TRACES[case]
    path = tmp_path / name
    path.write_bytes(data)
    done = run_cli("kernels", str(path), timeout=60)
    assert done.returncode == 2, (done.stdout, done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and word in lines[0], done.stderr[-2000:]
    assert done.stdout == ""


def test_a_gzip_bomb_is_refused_in_bounded_memory(tmp_path):
    """2 GiB inflated from a 2 MB file: refused with a clear line, with the process held to 1 GiB of memory."""
    import resource
    import subprocess
    import sys

    from conftest import cli_env

    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(_gzip_bomb())
    assert bomb.stat().st_size < 4 * 2**20

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))

    done = subprocess.run([sys.executable, "-m", "kernelbook", "kernels", str(bomb)], env=cli_env(), capture_output=True,
                          text=True, timeout=120, preexec_fn=limit)
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bomb) in lines[0] and "inflates to more than the 100 MiB" in lines[0], done.stderr[-2000:]


@pytest.mark.parametrize("special", ["fifo", "char_device", "folder_named_like_a_trace"])
def test_files_that_are_not_regular_are_refused_without_waiting(tmp_path, special):
    import os

    if special == "fifo":
        path = tmp_path / "pipe.json"
        os.mkfifo(path)  # no writer: reading it would wait forever
    elif special == "char_device":
        path = Path("/dev/zero")  # reading it would never end
    else:
        path = tmp_path / "trace.json.gz"
        path.mkdir()
    done = run_cli("kernels", str(path), timeout=30)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "not a regular file" in lines[0], done.stderr


def test_an_oversized_plain_trace_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:
        handle.truncate(101 * 2**20)  # sparse: costs no disk
    done = run_cli("kernels", str(path), timeout=30)
    assert done.returncode == 2 and "over the 100 MiB" in done.stderr and str(path) in done.stderr, done.stderr


@pytest.mark.parametrize("layout", ["compact", "indented", "leading_space", "keys_reordered"])
def test_a_capture_is_recognised_by_its_content_not_its_formatting(tmp_path, layout):
    source = ROOT / "snippets/ch01/captures/eager_profile.cpu.json"
    raw = json.loads(source.read_text(encoding="utf-8"))
    text = {
        "compact": lambda: json.dumps(raw, separators=(",", ":")),
        "indented": lambda: json.dumps(raw, indent=4),
        "leading_space": lambda: "\n\n   " + json.dumps(raw),
        "keys_reordered": lambda: json.dumps(dict(reversed(list(raw.items())))),
    }[layout]()
    path = tmp_path / "copy.cpu.json"
    path.write_text(text, encoding="utf-8")
    done = run_cli("kernels", str(path), "--json")
    expected = run_cli("kernels", str(source), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["kernels"] == json.loads(expected.stdout)["kernels"]
    assert json.loads(done.stdout)["launches"] == 2
