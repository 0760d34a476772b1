"""The capture kit: a notebook, in each language, that captures every snippet on a reader's GPU. Pure.

``kernelbook notebooks`` writes ``kit/capture_kit.<lang>.ipynb`` where ``kit/`` exists (``--check`` compares). Run on a
GPU machine (Colab, a lab's server), the notebook checks for an NVIDIA GPU first and stops,
saying so, where there is none; then it installs the book's pinned torch and triton (the
Makefile's ``TORCH_SPEC``, pyproject.toml's triton pin), gets the repository at a commit, runs
``kernelbook capture --device cuda`` snippet by snippet with progress, and packs one archive
with its manifest (``kernelbook pack``) for ``kernelbook merge`` (guide/gpu.md).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

KIT_DIR = "kit"
LANGS = ("ja", "en")

TEXT = {
    "title": {
        "ja": "# GPU キャプチャ・キット\n\nこのノートブックは、あなたの GPU で本のすべてのスニペットを実行し、"
              "`kernelbook capture --device cuda` の記録を一つのアーカイブにまとめます。"
              "GPU の種類ごとのキャプチャは本のページに並べて表示されます。",
        "en": "# GPU capture kit\n\nThis notebook runs every snippet of the book on your GPU and packs what "
              "`kernelbook capture --device cuda` records into one archive. Each GPU model's captures are "
              "shown side by side on the book's pages.",
    },
    "steps": {
        "ja": "手順: (1) GPU を確かめる (なければここで止まります) (2) 本が固定している torch と triton を入れる "
              "(3) リポジトリをコミットを指定して取得する (4) スニペットを一つずつキャプチャする "
              "(5) マニフェスト付きのアーカイブを作る。Colab では「ランタイム → ランタイムのタイプを変更」で GPU を選んでください。",
        "en": "Steps: (1) check for a GPU (the notebook stops here without one) (2) install the book's pinned torch "
              "and triton (3) get the repository at a commit (4) capture the snippets one by one (5) pack the archive "
              "with its manifest. On Colab, choose a GPU under Runtime → Change runtime type.",
    },
    "send": {
        "ja": "## 送り方\n\nできたアーカイブ (`captures-<GPU>.tar.gz`) を pull request に添えるか、フォークで "
              "`kernelbook merge captures-<GPU>.tar.gz` を実行してコミットしてください (guide/gpu.md の "
              "「Contributing GPU captures」)。",
        "en": "## Sending it\n\nAttach the archive (`captures-<GPU>.tar.gz`) to a pull request, or run "
              "`kernelbook merge captures-<GPU>.tar.gz` in your fork and commit the result (guide/gpu.md, "
              "\"Contributing GPU captures\").",
    },
    "no_gpu": {
        "ja": "GPU がありません: NVIDIA の GPU が見えないため、ここで止まります。Colab では「ランタイム → ランタイムのタイプを変更」で GPU を選び、最初から実行し直してください。",
        "en": "No GPU: no NVIDIA GPU is visible, so the kit stops here. On Colab, choose a GPU under Runtime → Change runtime type and run the notebook again from the top.",
    },
}

SETTINGS = '''REPOSITORY = "{repository}"  # GitHub owner/name
COMMIT = "{branch}"  # the book's commit, tag or branch to capture
TORCH = "{torch}"  # the book's pinned torch (Makefile TORCH_SPEC)
TRITON = "{triton}"  # the triton that torch needs (pyproject.toml)'''

CHECK = '''import shutil
import subprocess


def visible_gpu():
    """The first NVIDIA GPU's name and compute capability, or None."""
    if shutil.which("nvidia-smi") is None:
        return None
    done = subprocess.run(["nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv,noheader"], capture_output=True, text=True)
    lines = done.stdout.strip().splitlines() if done.returncode == 0 else []
    return lines[0] if lines else None


GPU = visible_gpu()
if GPU is None:
    print({message!r})
    raise SystemExit({message!r})
print("GPU:", GPU)'''

INSTALL = '''import sys

# ninja: torch's load_inline builds chapter 5's CUDA C++ kernels with it (and the machine's nvcc)
subprocess.run([sys.executable, "-m", "pip", "install", "-q", TORCH, TRITON, "ninja"], check=True)'''

CLONE = '''import os

if not os.path.isdir("kernelbook"):
    subprocess.run(["git", "clone", "-q", f"https://github.com/{REPOSITORY}.git", "kernelbook"], check=True)
subprocess.run(["git", "-C", "kernelbook", "fetch", "-q", "origin", COMMIT], check=True)
subprocess.run(["git", "-C", "kernelbook", "checkout", "-q", "FETCH_HEAD"], check=True)
KB = [sys.executable, "-m", "kernelbook"]
ENV = {**os.environ, "PYTHONPATH": os.path.abspath("kernelbook/scripts")}'''

CAPTURE = '''import json

status = subprocess.run(KB + ["status", "--json"], cwd="kernelbook", env=ENV, capture_output=True, text=True, check=True)
snippets = sorted({row["snippet"] for row in json.loads(status.stdout)})
failed = []
for i, snippet in enumerate(snippets, 1):
    print(f"[{i}/{len(snippets)}] {snippet}", flush=True)
    if subprocess.run(KB + ["capture", "--device", "cuda", snippet], cwd="kernelbook", env=ENV).returncode != 0:
        failed.append(snippet)
print(f"captured {len(snippets) - len(failed)} of {len(snippets)}; failed: {failed or 'none'}")'''

PACK = '''done = subprocess.run(KB + ["pack", "-o", "../captures.tar.gz"], cwd="kernelbook", env=ENV, capture_output=True, text=True)
print(done.stdout or done.stderr)
try:
    from google.colab import files  # on Colab: download the archive

    files.download("captures.tar.gz")
except ImportError:
    print("archive:", os.path.abspath("captures.tar.gz"))'''


def pins(root: Path) -> tuple[str, str]:
    """The book's torch (Makefile ``TORCH_SPEC``) and triton (pyproject.toml) pins, read as text."""
    make = re.search(r"^TORCH_SPEC\s*\?=\s*(\S+)", _read(root / "Makefile"), re.MULTILINE)
    triton = re.search(r"(triton==[0-9][^;\"'\s]*)", _read(root / "pyproject.toml"))
    return (make.group(1) if make else "torch"), (triton.group(1) if triton else "triton")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def notebook(lang: str, repository: str, branch: str, torch: str, triton: str) -> dict:
    """The kit in ``lang``, as nbformat 4 JSON."""
    cells = [
        _markdown(TEXT["title"][lang] + "\n\n" + TEXT["steps"][lang]),
        _code(SETTINGS.format(repository=repository, branch=branch, torch=torch, triton=triton)),
        _code(CHECK.format(message=TEXT["no_gpu"][lang])),
        _code(INSTALL),
        _code(CLONE),
        _code(CAPTURE),
        _code(PACK),
        _markdown(TEXT["send"][lang]),
    ]
    return {"cells": cells, "metadata": {"accelerator": "GPU", "colab": {"provenance": []},
                                         "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def _markdown(text: str) -> dict:
    return {"cell_type": "markdown", "id": _id(text), "metadata": {}, "source": text.splitlines(True)}


def _code(text: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "id": _id(text), "metadata": {}, "outputs": [],
            "source": text.splitlines(True)}


def _id(text: str) -> str:
    """A stable cell id (nbformat 4.5): the same text, the same id, in every run."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def kits(root: Path, repository: str, branch: str) -> dict[Path, str]:
    """Each language's kit: path -> the text it should hold; none for a book without a ``kit/`` folder (it opts in)."""
    if not (root / KIT_DIR).is_dir():
        return {}
    torch, triton = pins(root)
    return {root / KIT_DIR / f"capture_kit.{lang}.ipynb":
            json.dumps(notebook(lang, repository, branch, torch, triton), ensure_ascii=False, indent=1) + "\n" for lang in LANGS}


def stale(root: Path, repository: str, branch: str) -> list[Path]:
    return [path for path, text in kits(root, repository, branch).items() if _read(path) != text]


def write(root: Path, repository: str, branch: str) -> list[Path]:
    """Write the kits that differ; the paths written."""
    written = []
    for path in stale(root, repository, branch):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(kits(root, repository, branch)[path], encoding="utf-8")
        written.append(path)
    return written
