"""reference_cases_test: a model-against-reference test whose cases a Python script writes."""

def reference_cases_test(name, cases, data = [], size = "medium"):
    """Runs `cases` (a script writing DIR/cases.txt, tools/testing/reference_case.py) and checks
    every case through the stage binaries (tools/testing/reference_cases_test.sh).

    Args:
      name: the test's name.
      cases: the Python script that writes the cases (run with Debian's /usr/bin/python3).
      data: what the script reads besides itself (the torch exporter, model definitions).
      size: the test's size.
    """
    native.sh_test(
        name = name,
        size = size,
        srcs = ["//tools:testing/reference_cases_test.sh"],
        args = ["$(location %s)" % cases],
        data = [
            cases,
            "//codegen:build",
            "//frontend:import",
            "//passes:opt",
            "//tools:testing/checks.sh",
            "//tools:testing/reference_case.py",
            "//vm:run",
        ] + data,
    )
