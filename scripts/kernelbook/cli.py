"""The ``kernelbook`` command: parse arguments, call one function, print, exit.

Exit codes: 0 ok, 1 a snippet failed or a check did not pass, 2 a usage or input error,
3 an internal error (a bug: one line; ``KERNELBOOK_TRACEBACK=1`` shows its traceback),
130 / 143 stopped by Ctrl-C / SIGTERM. Bad input never prints a traceback.
The capture side (``capture``, ``status``, ``kernels``, ``merge``) needs only the
standard library and torch (``merge`` not even torch): nothing here imports the site half
(mkdocs, yaml) except inside ``build``, ``serve`` and ``notebooks``. ``diff`` needs neither: it
reads the prose's claims with ``site.prose.claims``, which is pure; ``status`` asks ``site.book``
(pure too) which captures the build would refuse.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from . import options
from .safety.errors import KernelbookError, json_visible, printable, visible
from .safety.processes import Stopped, exit_status, stop_on_signals


def project_root() -> Path:
    """The book: the nearest folder at or above cwd with a mkdocs.yml, or with snippets/ and a pyproject.toml."""
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "mkdocs.yml").is_file() or ((folder / "snippets").is_dir() and (folder / "pyproject.toml").exists()):
            return folder
    return here


def cmd_capture(args: argparse.Namespace) -> int:
    from .capture.runner import capture, summary
    from .common.snippets import discover, select, shard

    root = project_root()
    chosen = select(discover(root), args.patterns)
    if args.patterns and not chosen:
        raise KernelbookError(f"no snippet matches {' '.join(args.patterns)!s} under {root / 'snippets'}")
    if args.shard is not None:  # `--shard=` (empty) is an error, not "all"
        k, n = options.shard(args.shard)
        chosen = shard(chosen, k, n)
    outcomes = capture(root, chosen, args.device, force=args.force, jobs=args.jobs, timeout=args.timeout)
    if outcomes:
        print(summary(outcomes, root), file=sys.stderr)
    return 1 if any(not o.ok for o in outcomes) else 0


def cmd_status(args: argparse.Namespace) -> int:
    from .review import contributions
    from .common.freshness import assess, installed_torch, is_reference, runnable_devices, slots
    from .common.gpus import reference_gpu
    from .site.book import entry  # pure: which captures the build would refuse (no mkdocs, no torch)
    from .common.snippets import discover

    root = project_root()
    if args.changed_since is not None:
        contributions.base_commit(root, args.changed_since)  # a ref that names no commit: one line, before any report
    runnable, torch_now = runnable_devices(), installed_torch()
    reference = reference_gpu(root)
    snippets = discover(root)
    states = [assess(root, s, d, runnable, torch_now) for s in snippets for d in slots(s, reference)]
    refused = {(s.id, d): problem for s in snippets for problem in entry(root, s, runnable, torch_now, reference).problems
               for d in slots(s, reference) if problem.startswith(f"{d} capture ")}
    if args.json:
        print(json_visible(json.dumps([_state_record(st, refused.get((st.snippet.id, st.device)), is_reference(st.snippet, st.device, reference))
                                       for st in states], ensure_ascii=False, indent=1)))
    else:
        for st in states:
            env = st.capture.environment if st.capture else None
            detail = f"{env.device_name}, torch {env.torch}, {env.captured_at}" if env else ""
            reason = f" ({st.reason})" if st.reason else ""
            print(printable(f"{st.state:<10} {st.snippet.id:<32} {st.device:<4} {detail}{reason}"))
    # None: not asked; "" (an unset CI variable) is refused by contributions, never taken for "not asked"
    changed = contributions.problems(root, args.changed_since, runnable, torch_now) if args.changed_since is not None else []
    for line in changed:  # what a pull request brings must be shown by the build (contributions.py)
        print(printable(f"--changed-since {args.changed_since}: {line}"), file=sys.stderr)
    if not args.strict:
        return 1 if changed else 0
    # the book's reference GPU (mkdocs.yml's reference_gpu) must be fresh; other GPUs' captures are contributions
    bad_cuda = [st for st in states if is_reference(st.snippet, st.device, reference) and st.state != "fresh"]
    if bad_cuda:
        which = f"reference GPU {reference}" if reference else "CUDA"
        print(f"--strict: {len(bad_cuda)} {which} capture(s) not fresh: " + ", ".join(f"{st.snippet.id} ({st.state})" for st in bad_cuda), file=sys.stderr)
    if refused:
        # what `kernelbook build` would stop on, CPU captures included: found here, before any GPU hour is spent
        print(printable(f"--strict: the build would refuse {len(refused)} capture(s): " + "; ".join(f"{sid}: {why}" for (sid, _), why in refused.items())), file=sys.stderr)
    return 1 if bad_cuda or refused or changed else 0


def _state_record(st, refused: str | None = None, reference: bool = False) -> dict:
    env = st.capture.environment if st.capture else None
    return {
        "snippet": st.snippet.id,
        "device": st.device,
        "state": st.state,
        "reason": st.reason,
        "device_name": env.device_name if env else None,
        "torch": env.torch if env else None,
        "captured_at": env.captured_at if env else None,
        "capture": str(st.snippet.capture_path(st.device).relative_to(project_root())) if st.state != "missing" else None,
        "refused": refused,  # why `kernelbook build` would stop on this capture as it stands, or null
        "reference": reference,  # the reference GPU's capture, which `--strict` demands fresh (the GPU runner's job)
    }


def cmd_kernels(args: argparse.Namespace) -> int:
    from .capture.kernels import read_kernels
    from .common.kernel_names import short_name

    path = Path(args.file)
    kernels, launches, kind = read_kernels(path)
    if args.record:  # a trace recorded elsewhere, for [[kb:recorded]]
        from .common import recorded

        return print(recorded.write(path, Path(args.record), kind, launches, kernels)) or 0
    if args.json:
        print(json_visible(json.dumps({"file": str(path), "device_kind": kind, "launches": launches,
                          "kernels": [{"name": k.name, "short_name": short_name(k.name), "count": k.count, "time_us": k.time_us} for k in kernels]},
                         ensure_ascii=False, indent=1)))
        return 0
    # names come from a trace or capture made elsewhere: escaped for the terminal, as status and diff do
    print(printable(f"{'launches':>8} {'time (us)':>11}  kernel ({kind})"))
    for k in kernels:
        print(printable(f"{k.count:>8} {k.time_us:>11.1f}  {k.name if args.full else short_name(k.name, 100)}"))
    print(f"{launches:>8} {sum(k.time_us for k in kernels):>11.1f}  total launches")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    import tempfile

    from .capture.archive import as_archives, is_archive, unpack
    from .capture.merge import merge, summary

    root = project_root()
    with tempfile.TemporaryDirectory(prefix="kernelbook-merge-") as work:
        # an archive (the capture kit's) is checked against its manifest and this tree, then merged like a folder
        unpacked = {Path(work) / str(i): Path(d) for i, d in enumerate(args.dirs) if is_archive(Path(d))}
        dirs = [Path(work) / str(i) if Path(work) / str(i) in unpacked else Path(d) for i, d in enumerate(args.dirs)]
        try:
            for folder, archive in unpacked.items():
                unpack(root, archive, folder)
            said = summary(merge(root, dirs, allow_stale=args.allow_stale), [Path(d) for d in args.dirs], root)
        except KernelbookError as exc:  # an archive's file named as ARCHIVE:snippets/..., not in a folder deleted on exit
            raise KernelbookError(as_archives(str(exc), unpacked)) from None
        for line in as_archives(said, unpacked).splitlines():
            print(printable(line))  # device names and versions from the captures: escaped, as status and diff do
    return 0


def cmd_pack(args: argparse.Namespace) -> int:
    from .capture.archive import pack_command

    return print(pack_command(project_root(), args.gpu, args.patterns, Path(args.output))) or 0


def cmd_diff(args: argparse.Namespace) -> int:
    """Captures old → new: exit 0 no difference, 1 a difference, 2 bad input (one line per bad file)."""
    from .review import compare, report, trees

    root = project_root()
    if not 0 < args.threshold < 10:
        raise KernelbookError(f"--threshold {args.threshold}: expected a fraction such as 0.1 (±10 %), above 0 and below 10")
    if len(args.sides) > 2:
        raise KernelbookError("give at most two arguments: kernelbook diff [REF], or kernelbook diff DIR_A DIR_B")
    if args.gpu is not None or args.against is not None:  # one tree (or folder), two GPUs: the new GPU's captures against the reference GPU's
        old, new = trees.gpu_sides(root, args.sides, args.gpu, args.against)
    elif len(args.sides) == 2:
        old, new = (trees.folder(Path(d)) for d in args.sides)
    else:
        ref = args.sides[0] if args.sides else "HEAD"
        old, new = trees.at_ref(root, ref), trees.working_tree(root)
    bad = old.bad + new.bad
    for line in bad:
        print(f"kernelbook: {printable(line)}", file=sys.stderr)
    if bad:
        return 2
    diff = compare.compare(old, new, compare.page_claims(root), args.threshold, args.full)
    # kernel names and versions from captures made elsewhere: their control characters shown, never obeyed
    print(json_visible(report.as_json(diff)) if args.json else visible(report.markdown(diff) if args.format == "markdown" else report.text(diff)), end="")
    return 1 if diff.differs else 0


def cmd_notebooks(args: argparse.Namespace) -> int:
    from .common.freshness import check_inputs
    from . import kit
    from .common.gpus import book_option
    from .site.commands import check_glossary, notebooks_check, notebooks_write

    root = project_root()
    check_inputs(root)
    check_glossary(root)
    repository, branch = book_option(root, "repository") or "kernelbook/kernelbook", book_option(root, "branch") or "main"
    if args.check:
        stale = notebooks_check(root) + kit.stale(root, repository, branch)  # the capture kit (kit.py) too
        for path in stale:
            print(f"stale: {path.relative_to(root)}")
        if stale:
            print(f"{len(stale)} notebook(s) differ from their chapter, snippets and captures; run `kernelbook notebooks`", file=sys.stderr)
        return 1 if stale else 0
    written = notebooks_write(root) + kit.write(root, repository, branch)
    for path in written:
        print(f"wrote {path.relative_to(root)}")
    if not written:
        print("notebooks up to date", file=sys.stderr)
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    from .common.freshness import check_inputs, cuda_present

    root = project_root()
    if not args.no_capture:
        # The best device first; on a GPU machine the CPU captures too, since a page
        # must never rest on a CPU capture that is stale against its snippet.
        for device in ("auto", "cpu") if cuda_present() else ("auto",):
            code = cmd_capture(argparse.Namespace(patterns=[], device=device, force=False, jobs=args.jobs, timeout=args.timeout, shard=None))
            if code:
                print("build stopped: a snippet failed, so its page would show an old or missing capture", file=sys.stderr)
                return code
    check_inputs(root)  # what capture could not mend (a CUDA capture here): one line, before MkDocs starts
    from .site.commands import build, check_glossary

    check_glossary(root)  # a broken glossary: one line naming its file and line, as `notebooks` says it

    # --no-capture: read_only, so the plugin checks the notebooks instead of writing them
    print(f"mkdocs build --strict --site-dir {root / 'site'}" + (" (read-only)" if args.no_capture else ""), file=sys.stderr, flush=True)
    return build(root, root / "site", plugin={"read_only": True} if args.no_capture else None)


def cmd_render(args: argparse.Namespace) -> int:
    from .common.freshness import check_inputs
    from .site.commands import check_glossary, render

    root = project_root()
    check_inputs(root)  # a broken snippet or capture: one line, as build says it
    check_glossary(root)
    return render(root, Path(args.out).resolve())


def cmd_edition(args: argparse.Namespace) -> int:
    """Editions on the gh-pages branch, through mike: cut, publish, list or delete (``publishing.command``)."""
    from .site.editions import publishing

    print(publishing.command(project_root(), args.action, args.name, push=args.push, remote=args.remote, branch=args.branch), end="")
    return 0


def cmd_pdf(args: argparse.Namespace) -> int:
    from .site import pdf  # both PDFs: from --site, or from a read-only build of the book made first

    print(pdf.timed(project_root(), Path(args.out), args.paper, Path(args.site) if args.site else None), end="")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """``mkdocs serve`` in a child that never outlives this process; SIGTERM and Ctrl-C are passed on."""
    from .common.freshness import check_inputs
    from .safety.processes import die_with_parent, stop_server

    root = project_root()
    host, port = options.dev_addr(args.dev_addr)
    check_inputs(root)  # a broken snippet or capture: one line now, not a failing first build
    from .site.commands import check_glossary

    check_glossary(root)
    options.check_port_free(host, port)
    env = dict(os.environ, NO_MKDOCS_2_WARNING=os.environ.get("NO_MKDOCS_2_WARNING", "1"))
    proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--dev-addr", args.dev_addr], cwd=root, env=env,
                            preexec_fn=die_with_parent)
    try:
        return proc.wait()
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM (processes.Stopped): the server goes with us, freeing the port
        stop_server(proc, interrupted=not isinstance(stop, Stopped))
        raise


SITE_COMMANDS = ("build", "serve", "notebooks", "edition", "render", "pdf")  # the only ones that import kernelbook.site (mkdocs)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kernelbook", description="Executed PyTorch snippets, captured kernels, bilingual pages.")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("capture", help="run stale snippets and record what they launched")
    c.add_argument("patterns", nargs="*", metavar="PATTERN", help="only snippets whose id or path contains this")
    c.add_argument("--device", choices=("auto", "cuda", "cpu"), default="auto", help="auto: CUDA if present, else CPU")
    c.add_argument("--force", action="store_true", help="re-run even fresh captures")
    c.add_argument("--jobs", type=options.positive_int, default=None, help="snippets at a time, of those that time nothing; those that time themselves run alone, after them (default 1)")
    c.add_argument("--timeout", type=options.positive_seconds, default=900.0, help="seconds per snippet (default 900)")
    c.add_argument("--shard", metavar="K/N", help="only shard K of N (stable split by snippet id)")
    c.set_defaults(func=cmd_capture)

    s = sub.add_parser("status", help="every snippet × device: fresh, stale, missing, error, unreadable")
    s.add_argument("--json", action="store_true")
    s.add_argument("--strict", action="store_true", help="exit 1 when a capture of the reference GPU (mkdocs.yml's reference_gpu) is missing or stale, or the build would refuse any capture (CPU ones too)")
    s.add_argument("--changed-since", metavar="REF", help="exit 1 when a capture file added or changed since the git REF is unreadable or of another version of its snippet (pull requests)")
    s.set_defaults(func=cmd_status)

    k = sub.add_parser("kernels", help="kernels launched, from a Chrome trace (.json/.json.gz) or a capture")
    k.add_argument("file")
    k.add_argument("--json", action="store_true")
    k.add_argument("--full", action="store_true", help="full demangled names")
    k.add_argument("--record", metavar="OUT", help="write what was read and the trace's sha256 to OUT, beside it ([[kb:recorded]])")
    k.set_defaults(func=cmd_kernels)

    m = sub.add_parser("merge", help="bring captures from other folders (e.g. CI shard artifacts) into this tree")
    m.add_argument("dirs", nargs="+", metavar="DIR|ARCHIVE", help="a folder holding snippets/<chapter>/captures/... like this tree, or a .tar.gz from `kernelbook pack`")
    m.add_argument("--allow-stale", action="store_true",
                   help="put a capture over a fresher one in the tree (another version of the snippet, or taken earlier)")
    m.set_defaults(func=cmd_merge)

    d = sub.add_parser("diff", help="what changed between the captures at a git ref (default HEAD) and the working tree, or in two folders",
                       epilog="exit status: 0 no difference, 1 a difference, 2 bad input (one line per bad file)")
    d.add_argument("sides", nargs="*", metavar="REF | DIR_A DIR_B",
                   help="a git ref to compare the working tree with (default HEAD), or two folders laid out like snippets/")
    d.add_argument("--format", choices=("text", "markdown"), default="text", help="markdown: for a pull request body")
    d.add_argument("--json", action="store_true", help="the whole comparison as JSON")
    d.add_argument("--threshold", type=float, default=0.1,
                   help="a timing or other non-integer number that moved by less than this fraction counts as unchanged (default 0.1: ±10%%)")
    d.add_argument("--full", action="store_true", help="compare kernels by their full names, not their short names")
    d.add_argument("--gpu", metavar="KEY", help="compare this GPU's captures with the reference GPU's (guide/gpu.md, \"GPU keys\")")
    d.add_argument("--against", metavar="KEY", help="with --gpu: the GPU to compare with (default: mkdocs.yml's reference_gpu)")
    d.set_defaults(func=cmd_diff)

    a = sub.add_parser("pack", help="pack one GPU's fresh captures and a manifest into an archive for `kernelbook merge`")
    a.add_argument("patterns", nargs="*", metavar="PATTERN", help="only snippets whose id or path contains this")
    a.add_argument("--gpu", metavar="KEY", help="the GPU key of the captures (default: this machine's GPU)")
    a.add_argument("-o", "--output", required=True, metavar="FILE.tar.gz")
    a.set_defaults(func=cmd_pack)

    n = sub.add_parser("notebooks", help="regenerate each chapter's notebook from its page, snippets and captures")
    n.add_argument("--check", action="store_true", help="write nothing; exit 1 listing notebooks that are out of date")
    n.set_defaults(func=cmd_notebooks)

    b = sub.add_parser("build", help="capture what is stale on the best device, then mkdocs build --strict")
    b.add_argument("--no-capture", action="store_true", help="run nothing, write nothing into docs/: render what is committed")
    b.add_argument("--jobs", type=options.positive_int, default=None)
    b.add_argument("--timeout", type=options.positive_seconds, default=900.0)
    b.set_defaults(func=cmd_build)

    r = sub.add_parser("render", help="the book as plain docs trees (OUT/<lang>/docs + mkdocs.yml) any generator builds, no plugin")
    r.add_argument("out", metavar="OUT", help="the folder to write OUT/<lang>/ into (each replaced)")
    r.set_defaults(func=cmd_render)

    e = sub.add_parser("edition", help="cut an edition (YYYY.MM: version set, committed, tagged edition-YYYY.MM), or publish, list or delete editions on the gh-pages branch, with mike",
                       epilog="cut and publish: `kernelbook edition cut 2026.12`, then `git push origin HEAD edition-2026.12` "
                              "(the site-cpu workflow publishes a pushed edition tag)")
    e.add_argument("action", choices=("cut", "publish", "list", "delete"))
    e.add_argument("name", nargs="?", metavar="EDITION", help="YYYY.MM (e.g. 2026.12) or latest")
    e.add_argument("--push", action="store_true", help="push the gh-pages branch to the remote afterwards")
    e.add_argument("--remote", default="origin")
    e.add_argument("--branch", default="gh-pages")
    e.set_defaults(func=cmd_edition)

    f = sub.add_parser("pdf", help="the book as kernelbook-ja.pdf and kernelbook-en.pdf (title page, contents, chapters, glossary), printed by Chromium")
    f.add_argument("--site", metavar="DIR", help="print this built site (default: build the book, read-only, first)")
    f.add_argument("--out", default=".", metavar="DIR", help="where the PDFs go (default: here)")
    f.add_argument("--paper", choices=("a4", "letter"), default="a4", help="page size (default: A4)")
    f.set_defaults(func=cmd_pdf)

    v = sub.add_parser("serve", help="mkdocs serve: reloads on page, snippet or capture changes; never executes")
    v.add_argument("--dev-addr", default="127.0.0.1:8000")
    v.set_defaults(func=cmd_serve)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        with stop_on_signals():  # SIGTERM and SIGHUP stop kernelbook as Ctrl-C does: children killed, nothing half-written
            return args.func(args)
    except KernelbookError as exc:
        print(f"kernelbook: {printable(str(exc))}", file=sys.stderr)  # it may quote a file's contents
        return 2
    except ImportError as exc:
        if args.command not in SITE_COMMANDS:
            return _internal_error(exc)
        print(f"kernelbook: `kernelbook {args.command}` renders the site and needs mkdocs and its plugins ({exc}); install them with `pip install -e .` (capture, status, kernels and merge need only torch)", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        said = str(exc) if isinstance(exc, Stopped) else "Ctrl-C"
        print(f"kernelbook: interrupted ({said}); captures already written are kept, nothing half-written", file=sys.stderr)
        return exit_status(exc)
    except Exception as exc:  # noqa: BLE001 - see _internal_error
        return _internal_error(exc)


def _internal_error(exc: BaseException) -> int:
    """A bug in kernelbook, not bad input (always a KernelbookError, exit 2): one line, exit 3; KERNELBOOK_TRACEBACK=1 re-raises it."""
    if os.environ.get("KERNELBOOK_TRACEBACK"):
        raise exc
    print(f"kernelbook: internal error, a bug in kernelbook: {type(exc).__name__}: {exc} "
          "(run again with KERNELBOOK_TRACEBACK=1 for the traceback, and report it)", file=sys.stderr)
    return 3
