#!/usr/bin/python3
"""Every path, Bazel label and stage flag the docs name exists (README.md and docs/*.md).

- a path in backticks under a top-level folder (`ir/tir/stmt.h`, `passes/schedule/`) must exist;
  `{a,b}` alternatives are expanded, `<placeholders>` and `*` globs are matched loosely;
- a label (`//passes:opt`, `//tools/fuzz:*_regression`) must name a package with a BUILD file and,
  for a plain name, a rule or file of that package;
- a flag after ` -- ` of `bazelw run //<binary>` must be one that some ABSL_FLAG defines (dashes
  read as underscores, as the stages accept) or that a script or tool spells out (`"--runs"`).
"""
import glob
import os
import re
import sys

TOP = ("support", "ir", "frontend", "passes", "codegen", "vm", "tools", "testdata", "docs", "python", "third_party")


def expand(path):
    m = re.search(r"\{([^}]*)\}", path)
    if not m:
        return [path]
    return [p for alt in m.group(1).split(",") for p in expand(path[: m.start()] + alt + path[m.end():])]


def path_exists(root, path):
    if "<" in path or "*" in path:
        pattern = re.sub(r"<[^>]*>", "*", path)
        return bool(glob.glob(os.path.join(root, pattern)))
    return os.path.exists(os.path.join(root, path))


def label_exists(root, label, rules):
    m = re.match(r"//([\w/.-]*)(?::([\w./*+-]+))?$", label)
    if not m:
        return False
    pkg, name = m.group(1), m.group(2)
    if pkg == "..." or pkg.endswith("/..."):  # //..., //tools/fuzz/...: the folder must exist
        return os.path.isdir(os.path.join(root, pkg[:-3]))
    if not os.path.exists(os.path.join(root, pkg, "BUILD")):
        return False
    if name is None or "*" in name or name == "all":
        return True
    return name in rules.setdefault(pkg, read_rules(root, pkg)) or os.path.exists(os.path.join(root, pkg, name))


def read_rules(root, pkg):
    text = open(os.path.join(root, pkg, "BUILD"), encoding="utf-8").read()
    names = set(re.findall(r'name = "([\w.+-]+)"', text))
    names |= set(re.findall(r'^\s*"([\w-]+)": "//', text, re.M))  # the root BUILD's stage aliases
    if 'name = d + "_test"' in text:  # one test per case directory (testdata/passes, testdata/codegen)
        names |= {d + "_test" for d in os.listdir(os.path.join(root, pkg))
                  if glob.glob(os.path.join(root, pkg, d, "*.py"))}
    for macro, suffixes in (("mlc_fuzzer", ("", "_regression", "_smoke")), ("compile_model", ("",))):
        for n in re.findall(macro + r'\(\s*name = "([\w-]+)"', text):
            names |= {n + s for s in suffixes}
    return names


def main():
    root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    docs = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    flags = set()
    for f in [f for top in TOP if top != "third_party" for f in glob.glob(os.path.join(root, top, "**", "*.cc"), recursive=True)]:
        flags |= set(re.findall(r"ABSL_FLAG\(\s*[\w:<>]+,\s*(\w+)", open(f, encoding="utf-8").read()))
    for f in [f for top in ("tools", "frontend", "python") for ext in ("cc", "py", "sh")
              for f in glob.glob(os.path.join(root, top, "**", "*." + ext), recursive=True)]:
        flags |= {m.replace("-", "_") for m in re.findall(r"[\"'(|\s]--([a-z][\w-]*)", open(f, encoding="utf-8").read())}
    rules, problems, checked = {}, [], 0
    for doc in docs:
        text = open(doc, encoding="utf-8").read()
        rel = os.path.relpath(doc, root)
        for lineno, line in enumerate(text.split("\n"), 1):
            for code in re.findall(r"`([^`]+)`", line) + ([line] if line.startswith(("./bazelw", "bazel")) else []):
                for label in re.findall(r"(?<![\w@:])//[\w/.-]*(?::[\w./*+-]+)?(?![\w<])", code):
                    label = label.rstrip(".")
                    checked += 1
                    if not label_exists(root, label, rules):
                        problems.append(f"{rel}:{lineno}: label {label} does not exist")
                token = code.strip()
                if re.match(r"^(%s)/[\w./{},<>*+-]*$" % "|".join(TOP), token) and not token.startswith("ir/.../"):
                    for p in expand(token):
                        checked += 1
                        pkg, _, name = p.rstrip(".").rpartition("/")
                        if not path_exists(root, p.rstrip(".")) and not label_exists(root, f"//{pkg}:{name}", rules):
                            problems.append(f"{rel}:{lineno}: path {p} does not exist")
            m = re.search(r"bazelw run (//[\w/:.-]+)[^`]* -- (.*)", line)
            if m:
                for flag in re.findall(r"(?<![\w-])--([a-z][\w-]*)", m.group(2)):
                    checked += 1
                    if flag.replace("-", "_") not in flags:
                        problems.append(f"{rel}:{lineno}: flag --{flag} of {m.group(1)} is defined by no ABSL_FLAG")
    for p in problems:
        print(p)
    print(f"{checked} names checked in {len(docs)} documents, {len(problems)} do not exist")
    if checked < 100:
        print("too few names: the docs were not found")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
