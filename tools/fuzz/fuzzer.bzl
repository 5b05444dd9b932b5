"""mlc_fuzzer: a fuzz target's entry point as a libFuzzer binary and as a corpus regression test."""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_test")

SMOKE_SECONDS = 12

def mlc_fuzzer(name, src, deps, corpus):
    """Declares <name> and <name>_regression.

    <name>: with --config=fuzz a libFuzzer binary (clang, ASan + UBSan):
        ./bazelw run --config=fuzz //tools/fuzz:<name> -- -max_total_time=60 CORPUS_DIR
    otherwise a program that runs the entry point once over each file given.
    <name>_regression: a test (in ./bazelw test //...) that runs every file of `corpus` through
    the entry point; a crash or sanitizer finding fails it.
    <name>_smoke: (manual; with --config=fuzz) fuzzes for SMOKE_SECONDS from `corpus`; any
    finding fails it. `.ci/run` runs them all (docs/testing.md#fuzzing).
    """
    cc_binary(
        name = name,
        srcs = [src],
        deps = deps + ["//tools/fuzz:fuzz_init"] + select({
            "//tools/fuzz:libfuzzer": [],
            "//conditions:default": ["//tools/fuzz:corpus_main"],
        }),
        linkopts = select({
            "//tools/fuzz:libfuzzer": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
    )
    cc_test(
        name = name + "_regression",
        srcs = [src],
        deps = deps + ["//tools/fuzz:corpus_main", "//tools/fuzz:fuzz_init"],
        data = corpus,
        args = ["$(locations %s)" % c for c in corpus],
    )
    native.sh_test(
        name = name + "_smoke",
        size = "medium",
        srcs = ["//tools/fuzz:smoke.sh"],
        data = [":" + name] + corpus,
        args = ["$(location :%s)" % name, str(SMOKE_SECONDS)] + ["$(locations %s)" % c for c in corpus],
        tags = ["manual"],
    )
