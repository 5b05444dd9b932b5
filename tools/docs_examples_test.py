#!/usr/bin/python3
"""Runs the examples the docs mark as runnable, so none goes stale (README.md and docs/*.md).

A fenced ```sh or ```python block right after the line `<!-- runnable -->` is an example a
reader can paste as it is. Each document's examples run in order, in a fresh directory of their
own (later blocks see the files earlier ones wrote) where the source tree's folders are linked,
so `testdata/...` and `frontend/torch/export_fx.py` resolve as in a checkout:

- sh: under `bash -euo pipefail`; `./bazelw run //pkg:name -- args` (or a root alias such as
  `//:pipeline`) runs the binary this test depends on, `./bazelw build ...` is already done (its
  outputs are this test's data) and `bazel-bin/` points at them; `./bazelw test` is refused.
- python: `/usr/bin/python3` with the assembled `mlc` package (//python:site) importable.

A failing example prints its document, line, text and output. The set of documents and binaries
is this test's data in tools/BUILD: an example naming a binary not there fails with a message
saying so.
"""
import os
import re
import subprocess
import sys
import time

MARK = "<!-- runnable -->"
FOLDERS = ("docs", "frontend", "passes", "codegen", "vm", "ir", "python", "support", "testdata", "tools")


def blocks(path):
    """(line, language, text) of each marked block of `path`."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found = []
    for i, line in enumerate(lines):
        if line.strip() != MARK:
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        m = re.match(r"```(\w+)\s*$", lines[j]) if j < len(lines) else None
        if not m or m.group(1) not in ("sh", "python"):
            raise SystemExit(f"{path}:{i + 1}: {MARK} must precede a ```sh or ```python block")
        end = j + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        found.append((j + 1, m.group(1), "\n".join(lines[j + 1:end])))
    return found


def aliases(root):
    """The root BUILD's stage aliases: //:pipeline -> //tools:pipeline."""
    text = open(os.path.join(root, "BUILD"), encoding="utf-8").read()
    return {f"//:{name}": actual for name, actual in re.findall(r'"(\w+)": "(//[\w/]+:\w+)"', text)}


def shell(text, root, alias):
    """The block with its Bazel commands turned into the runfiles' binaries."""
    out = []
    for line in text.replace("\\\n", " ").split("\n"):
        stripped = line.strip()
        m = re.match(r"\./bazelw\s+(\w+)\s*(.*)$", stripped)
        if not m:
            out.append(line)
            continue
        verb, rest = m.group(1), m.group(2)
        if verb == "build":
            continue
        if verb != "run":
            raise ValueError(f"`./bazelw {verb}` cannot run inside a test: {stripped}")
        parts = rest.split(None, 1)
        label, args = parts[0], (parts[1] if len(parts) > 1 else "")
        args = re.sub(r"^--\s*", "", args)
        label = alias.get(label, label)
        lm = re.match(r"//([\w/]*):(\w+)$", label)
        binary = os.path.join(root, lm.group(1), lm.group(2)) if lm else ""
        if not lm or not os.access(binary, os.X_OK):
            raise ValueError(f"{label} is not among this test's binaries (tools/BUILD: docs_examples_test's data)")
        out.append(f"{binary} {args}")
    return "\n".join(out)


def main():
    root = os.path.join(os.environ["TEST_SRCDIR"], "mlc")
    scratch_root = os.environ["TEST_TMPDIR"]
    alias = aliases(root)
    docs = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
    env = dict(os.environ, PYTHONPATH=os.path.join(root, "python", "site"), MLC_PROGRESS="0")
    env.pop("BUILD_WORKING_DIRECTORY", None)
    ran, failed = 0, 0
    for doc in docs:
        examples = blocks(os.path.join(root, doc))
        if not examples:
            continue
        work = os.path.join(scratch_root, doc.replace("/", "_"))
        os.makedirs(work)
        for folder in FOLDERS:
            if os.path.isdir(os.path.join(root, folder)):
                os.symlink(os.path.join(root, folder), os.path.join(work, folder))
        os.symlink(root, os.path.join(work, "bazel-bin"))
        for line, lang, text in examples:
            where = f"{doc}:{line} ({lang})"
            start = time.time()
            try:
                cmd = ["bash", "-euo", "pipefail", "-c", shell(text, root, alias)] if lang == "sh" else ["/usr/bin/python3", "-P", "-c", text]
                res = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=900)
                ok, output = res.returncode == 0, res.stdout + res.stderr
            except (ValueError, subprocess.TimeoutExpired) as e:
                ok, output = False, str(e)
            ran += 1
            if ok:
                print(f"ok: {where}, {time.time() - start:.1f} s")
            else:
                failed += 1
                print(f"FAILED: {where}\n--- example ---\n{text}\n--- output ---\n{output[-4000:]}")
    if ran == 0:
        print(f"FAILED: no document marks an example {MARK}")
        return 1
    print(f"{ran - failed} of {ran} runnable examples pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
