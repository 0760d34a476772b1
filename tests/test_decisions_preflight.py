"""What preflight lets through: the reference GPU, and a GPU exactly at the build's oldest architecture (issue 47)."""

from __future__ import annotations

from kernelbook.capture import preflight

CU130 = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]  # torch.cuda.get_arch_list() of a CUDA 13 build


def test_a_gpu_exactly_at_the_builds_oldest_architecture_passes():
    assert preflight.capability_problem((7, 5), CU130, "Tesla T4") is None
    assert preflight.capability_problem((7, 5), ["sm_75"], "Tesla T4") is None
    assert "7.5 and later" in preflight.capability_problem((7, 2), CU130, "Jetson AGX Xavier")


def test_the_reference_runner_passes_and_another_gpu_is_refused():
    assert preflight.reference_problem("NVIDIA H200", "9.0", "h200") is None
    assert preflight.reference_problem("NVIDIA H200", "9.0", None) is None  # a book that names no reference GPU
    problem = preflight.reference_problem("Tesla T4", "7.5", "h200")
    assert problem.startswith("this runner's GPU is Tesla T4 (key t4), the book's reference GPU is h200")
    assert "reference_gpu" in problem and "\n" not in problem
