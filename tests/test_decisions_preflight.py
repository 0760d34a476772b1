"""What preflight lets through: the reference GPU, a GPU exactly at the build's oldest architecture (issue 47); and what it says of the snippets that build CUDA C++."""

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


# ---------------------------------------------------------------- chapter 5's CUDA C++: built by load_inline

def test_the_snippets_that_build_cuda_cpp_are_found_and_named_when_they_cannot_be_built():
    from conftest import ROOT

    builders = preflight.extension_builders(ROOT)
    assert builders == ["snippets/ch05/_add_relu_cuda.py"]
    assert preflight.extension_problem("/usr/local/cuda", "/usr/local/cuda/lib64/libcudart.so", builders) is None
    assert preflight.extension_problem(None, None, []) is None  # a book that builds no CUDA C++: nothing to say
    missing = preflight.extension_problem(None, None, builders)
    assert missing.startswith("no CUDA toolkit (nvcc) found, so snippets/ch05/_add_relu_cuda.py (and the snippets that import it)")
    assert "(the other snippets are not affected)" in missing
    assert preflight.extension_problem(None, None, builders, cuda_home_set="/opt/cuda").startswith("no nvcc in CUDA_HOME=/opt/cuda/bin, so")
    assert "wheel's libcudart.so.12 will do" in preflight.extension_problem("/usr/local", None, builders, runtime="libcudart.so.12")
    assert "CUDA_HOME" in missing and "\n" not in missing
    unlinked = preflight.extension_problem("/usr/local", None, builders)
    assert unlinked.startswith("no libcudart.so in /usr/local/lib64 or lib or on the linker's path") and "LIBRARY_PATH to a folder" in unlinked
    named = preflight.extension_problem("/usr/local", None, builders, "/usr/local/cuda-13.0/lib")
    assert named.endswith("set LIBRARY_PATH=/usr/local/cuda-13.0/lib (nvcc's own library folder; scripts/gpu_session.sh and the site-gpu workflow set it themselves)")


def test_libcudart_is_looked_for_where_load_inline_links_it(tmp_path, monkeypatch):
    import shutil

    toolkit = tmp_path / "cuda"
    (toolkit / "lib").mkdir(parents=True)
    (toolkit / "lib" / "libcudart.so").write_bytes(b"")
    assert preflight.find_cudart(str(toolkit), None) == str(toolkit / "lib" / "libcudart.so")  # no lib64: lib, as torch does
    (toolkit / "lib64").mkdir()
    assert preflight.find_cudart(str(toolkit), None) is None  # lib64 exists: torch passes it alone with -L
    elsewhere = tmp_path / "linked"
    elsewhere.mkdir()
    (elsewhere / "libcudart.so").write_bytes(b"")
    cc = shutil.which("c++") or shutil.which("g++")
    assert cc, "no C++ compiler: torch.compile's CPU code, which the suite runs, needs one too"
    monkeypatch.setenv("LIBRARY_PATH", str(elsewhere))
    assert preflight.find_cudart(str(toolkit), [cc]) == str(elsewhere / "libcudart.so")
    monkeypatch.setenv("CXX", f"env {cc}")  # a command of several words, as ccache g++ is
    assert preflight.cxx_command() == ["env", cc] and preflight.find_cudart(str(toolkit), preflight.cxx_command()) == str(elsewhere / "libcudart.so")
    monkeypatch.delenv("LIBRARY_PATH")
    assert preflight.find_cudart(str(toolkit), ["/no/such/compiler"]) is None


# `nvcc --dryrun` of NVIDIA's CUDA 13.0 toolkit (the line that matters, as it prints it)
DRYRUN = """#$ _HERE_=/usr/local/cuda-13.0/bin
#$ _TOP_=/usr/local/cuda-13.0/bin/..
#$ LIBRARIES=  "-L/usr/local/cuda-13.0/bin/../targets/x86_64-linux/lib/stubs" "-L/usr/local/cuda-13.0/bin/../targets/x86_64-linux/lib"
"""


def test_nvcc_says_where_its_own_libraries_are():
    assert preflight.nvcc_library_dirs(DRYRUN) == ["/usr/local/cuda-13.0/bin/../targets/x86_64-linux/lib"]
    assert preflight.nvcc_library_dirs("#$ LIBRARIES=  -L/opt/cuda/lib64\n") == ["/opt/cuda/lib64"]
    assert preflight.nvcc_library_dirs("nvcc fatal: something else\n") == []
    assert preflight.nvcc_library_dirs('#$ LIBRARIES=  "-L/opt/my cuda/lib" -lfoo\n') == ["/opt/my cuda/lib"]  # nvcc quotes the whole flag
    assert preflight.nvcc_library_dirs('#$ LIBRARIES=  "-L/unbalanced\n') == []


def test_nvcc_s_own_folder_is_offered_only_when_it_holds_libcudart(tmp_path):
    toolkit = tmp_path / "cuda"
    (toolkit / "bin").mkdir(parents=True)
    (toolkit / "targets" / "lib").mkdir(parents=True)
    nvcc = toolkit / "bin" / "nvcc"  # prints what a real nvcc --dryrun prints, with this toolkit's folders
    nvcc.write_text(f"#!/bin/sh\necho '#$ LIBRARIES=  \"-L{toolkit}/targets/lib/stubs\" \"-L{toolkit}/targets/lib\"' >&2\n")
    nvcc.chmod(0o755)
    assert preflight.nvcc_cudart_folder(str(nvcc)) is None
    (toolkit / "targets" / "lib" / "libcudart.so").write_bytes(b"")
    assert preflight.nvcc_cudart_folder(str(nvcc)) == str((toolkit / "targets" / "lib").resolve())
    assert preflight.nvcc_cudart_folder(str(tmp_path / "no-nvcc")) is None


def test_the_folder_is_one_line_for_the_shell_and_a_failing_check_is_only_a_warning(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(preflight, "extension_link", lambda: ("/usr/local", None, "/usr/local/cuda-13.0/lib"))
    assert preflight.main(["--library-path"]) == 0 and capsys.readouterr().out == "/usr/local/cuda-13.0/lib\n"
    monkeypatch.setattr(preflight, "extension_link", lambda: ("/usr/local/cuda", "/usr/local/cuda/lib64/libcudart.so", None))
    assert preflight.main(["--library-path"]) == 0 and capsys.readouterr().out == "\n"
    assert preflight.main(["--what"]) == 2 and "usage" in capsys.readouterr().err

    def broken():
        raise OSError("no such file")

    monkeypatch.setattr(preflight, "extension_link", broken)
    assert preflight.main(["--library-path"]) == 0 and capsys.readouterr().out == "\n"
    (tmp_path / "snippets" / "ch05").mkdir(parents=True)
    (tmp_path / "snippets" / "ch05" / "_ext.py").write_text("from torch.utils.cpp_extension import load_inline\n")
    monkeypatch.setattr(preflight, "nvidia_gpu", lambda: None)
    assert preflight.notes(tmp_path) == ["the CUDA C++ build (torch.utils.cpp_extension) could not be checked: OSError: no such file"]
    monkeypatch.setattr(preflight, "extension_link", lambda: ("/usr/local", None, "/usr/local/cuda-13.0/lib"))
    (note,) = preflight.notes(tmp_path)
    assert note.startswith("no libcudart.so in /usr/local/lib64 or lib") and note.endswith("the site-gpu workflow set it themselves)")
