"""What a claim checks: every fresh capture for an unscoped claim, every value of a list (issue 47)."""

from __future__ import annotations

import pytest

from kernelbook.common.records import Capture, Environment, Freshness, Kernel, Session
from kernelbook.site.prose import claims

SID = "ch09/toy"


def capture(device: str, launches: list[int], name: str | None = None) -> Capture:
    """A made-up capture: one session per entry of ``launches``, each one kernel launched that often."""
    sessions = tuple(Session(i, device, (Kernel(f"k{i}", n, float(n)),), n) for i, n in enumerate(launches))
    name = name or ("NVIDIA H100 80GB HBM3" if device == "cuda" else "CPU (test)")
    return Capture(SID, device, Freshness("0" * 64, 2, "2.13.0"),
                   Environment(device, name, "2.13.0", "3.11", "Linux", "2026-01-02T03:04:05Z"),
                   1.5, "", "", sessions, None)


def test_an_unscoped_claim_true_on_the_shown_capture_fails_on_another_fresh_one_naming_it():
    cuda, cpu = capture("cuda", [2]), capture("cpu", [3])
    claim = claims.parse("launches", f"{SID} == 2", f"[[kb:launches {SID} == 2]]")
    assert claims.read(claim, (cuda,), cuda).value == 2  # alone, the shown capture agrees
    with pytest.raises(claims.ClaimError, match=r"the cpu capture toy\.cpu\.json says 3"):
        claims.read(claim, (cuda, cpu), cuda)


def test_an_unscoped_claim_is_checked_on_a_second_gpus_capture_too():
    h100, t4 = capture("cuda", [2]), capture("cuda", [5], name="Tesla T4")
    claim = claims.parse("launches", f"{SID} == 2", "t")
    with pytest.raises(claims.ClaimError, match="Tesla T4"):
        claims.read(claim, (h100, t4), h100)


def test_a_list_with_more_values_than_sessions_fails():
    cpu = capture("cpu", [1, 2, 4, 8])
    claim = claims.parse("launches", f"{SID}#0..3 == 1,2,4,8,16", "t")
    with pytest.raises(claims.ClaimError, match="says 1, 2, 4, 8"):
        claims.check(claim, cpu)
    assert claims.check(claims.parse("launches", f"{SID}#0..3 == 1,2,4,8", "t"), cpu) == [1, 2, 4, 8]
    assert claims.check(claims.parse("launches", f"{SID}#0..3 != 1,2,4,8,16", "t"), cpu) == [1, 2, 4, 8]


def test_contains_holds_when_any_kernel_of_the_list_contains_the_text():
    cpu = capture("cpu", [2])  # its freshness and environment
    two = Capture(SID, "cpu", cpu.freshness, cpu.environment, 1.0, "", "",
                  (Session(0, "cpu", (Kernel("add_kernel", 1, 1.0), Kernel("mul_kernel", 1, 1.0)), 2),), None)
    assert claims.check(claims.parse("kernels", f"{SID} ~ add", "t"), two) == ["add_kernel", "mul_kernel"]
    with pytest.raises(claims.ClaimError):
        claims.check(claims.parse("kernels", f"{SID} ~ sub", "t"), two)


def test_a_claim_with_two_checks_is_refused_not_checked_on_its_last_one():
    with pytest.raises(claims.ClaimError, match="one check per claim"):
        claims.parse("value", f"{SID} rows.0.eager_s > 1 == 2", "[[kb:value x]]")


def test_a_true_false_value_is_checked_as_written():
    base = capture("cpu", [1])
    ok = Capture(SID, "cpu", base.freshness, base.environment, 1.0, "", "", base.sessions, {"ok": True})
    assert claims.check(claims.parse("value", f"{SID} ok == true", "t"), ok) is True
    with pytest.raises(claims.ClaimError, match="says True"):
        claims.check(claims.parse("value", f"{SID} ok == false", "t"), ok)
    with pytest.raises(claims.ClaimError, match="write true or false"):
        claims.check(claims.parse("value", f"{SID} ok == yes", "t"), ok)


def test_kernel_names_the_first_launched_kernel_containing_the_text():
    base = capture("cpu", [1])
    kernels = (Kernel("triton_poi_fused_add_0", 1, 1.0), Kernel("triton_red_fused_sum_1", 1, 1.0))
    two = Capture(SID, "cpu", base.freshness, base.environment, 1.0, "", "", (Session(0, "cpu", kernels, 2),), None)
    assert claims.check(claims.parse("kernel", f"{SID} ~ fused", "t"), two) == "triton_poi_fused_add_0"
    assert claims.check(claims.parse("kernel", f"{SID} ~ sum", "t"), two) == "triton_red_fused_sum_1"
