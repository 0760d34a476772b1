"""Kernel names for people: the demangled C++ of a GPU kernel, shortened. Pure.

Shared by both halves: ``kernelbook kernels`` prints these names, and pages, claims and
figures show them.
"""

from __future__ import annotations

import re

# A snippet wraps each Triton launch in record_function("triton: NAME"): on a CPU, where
# Triton's interpreter runs it, that range is the launch (capture/kernels.py counts it;
# the site knows from it that the kernel was interpreted).
TRITON_RANGE = "triton: "

# What a generic kernel computes, most telling first: a functor, a launch_* lambda, an inner kernel.
_TAGS = (re.compile(r"\w*Functor\w*"), re.compile(r"launch_\w+"), re.compile(r"\w+_kernel\w*"))


# Inductor names a compiled C++ kernel's profiler range after the graph it belongs to,
# ``graph_N_cpp_fused_…``: N counts the graphs inductor compiled earlier in the same process,
# so it moves with anything compiled before (even with whether triton is installed).
_GRAPH_NUMBER = re.compile(r"^graph_\d+_(?=cpp_)")


def without_graph_number(name: str) -> str:
    """``graph_1_cpp_fused_relu_0`` -> ``cpp_fused_relu_0``: the kernel, whatever compiled before it."""
    return _GRAPH_NUMBER.sub("", name)


def short_name(name: str, limit: int = 60) -> str:
    """A readable name: the function's own name plus the functor that says what it computes.

    ``void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, …>(…)``
    becomes ``vectorized_elementwise_kernel<CUDAFunctor_add>``.
    """
    if name.startswith("aten::"):  # CPU ops: keep the name the profiler table prints
        return name
    text = name.removeprefix("void ").replace("(anonymous namespace)::", "")
    cut = min((i for i in (text.find("<"), text.find("(")) if i >= 0), default=len(text))
    base = text[:cut].rsplit("::", 1)[-1].strip() or text[:cut].strip()
    if "cpp_fused_" in base:  # graph_0_cpp_fused_add_relu_0 -> cpp_fused_add_relu_0 (see without_graph_number)
        base = base[base.index("cpp_fused_"):]
    tag = ""
    if cut < len(text) and text[cut] == "<":
        args = text[cut:]
        match = next((m for m in (t.search(args) for t in _TAGS) if m), None)
        tag = f"<{match.group(0)}>" if match and match.group(0) != base else ""
    short = (base + tag) or name
    return short if len(short) <= limit else short[: limit - 1] + "…"
