#!/usr/bin/python3
"""The layer order of the source tree, checked on every #include (docs/layout.md#layers).

A file may include its own layer and the layers listed as below it; anything else points
upward (or sideways, between frontend and passes) and fails the test. Tests (*_test.cc) and
testing helpers are exempt: an integration test of a low layer may drive the stages above it.
"""
import os
import re
import sys

# Layer -> what it may include besides itself. Order from the bottom; "vm" is the runtime,
# which needs nothing of the compiler (no IR, no LLVM).
LAYERS = [
    ("support", []),
    ("vm", ["support"]),
    ("ir/core", ["support"]),
    ("ir/tir", ["support", "ir/core"]),
    ("ir/target", ["support", "ir/core"]),
    ("ir/graph", ["support", "ir/core", "ir/tir", "ir/target"]),
    ("ir/ops", ["support", "ir/core", "ir/tir", "ir/target", "ir/graph", "ir/te", "ir/topi"]),
    ("ir/te", ["support", "ir/core", "ir/tir", "ir/target", "ir/graph"]),
    ("ir/topi", ["support", "ir/core", "ir/tir", "ir/target", "ir/graph", "ir/te"]),
    ("ir/testing", ["support", "ir/core", "ir/tir", "ir/target", "ir/graph", "ir/ops", "ir/te", "ir/topi"]),
    ("frontend", ["support", "ir"]),
    ("passes", ["support", "ir"]),
    ("codegen", ["support", "ir", "passes", "vm"]),
    ("tools", None),  # on top: anything
    ("python", None),
]


def layer_of(path):
    best = None
    for name, _ in LAYERS:
        if path == name or path.startswith(name + "/"):
            if best is None or len(name) > len(best):
                best = name
    return best


def allowed(src_layer, dst_path):
    below = dict(LAYERS)[src_layer]
    if below is None:
        return True
    dst_layer = layer_of(dst_path)
    if dst_layer is None or dst_layer == src_layer:
        return True  # third-party headers, or the layer itself
    return any(dst_layer == b or dst_layer.startswith(b + "/") for b in below)


def main():
    # The runfiles are links into the source tree: walk the tree they point into.
    root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    violations, files = [], 0
    for top, _ in LAYERS:
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if not name.endswith((".h", ".cc")) or name.endswith("_test.cc") or "/testing" in dirpath[len(root):]:
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                src = layer_of(rel)
                if src != top:
                    continue  # counted under its own, deeper layer
                files += 1
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    text = f.read()
                for m in include.finditer(text):
                    target = m.group(1)
                    if not os.path.exists(os.path.join(root, target)) and not target.endswith(".pb.h"):
                        continue  # a library's header (absl/..., llvm/...)
                    if not allowed(src, target):
                        line = text.count("\n", 0, m.start()) + 1
                        violations.append(f"{rel}:{line}: {src} includes {target} ({layer_of(target)} is not below it)")
    for v in violations:
        print(v)
    print(f"{files} files checked, {len(violations)} includes point upward")
    if files < 100:
        print("too few files: the source tree was not found")
        return 1
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
