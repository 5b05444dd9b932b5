# Golden-file checks for shell tests (source this file). Mirrors ir/testing/golden.h:
#   check_golden <workspace-relative golden path> <file with the actual output>
# compares, or with UPDATE_GOLDENS=1 (./bazelw test passes the workspace directory) rewrites
# the golden in the source tree. Returns non-zero and prints the diff on a mismatch.
check_golden() {
  local golden="$1" actual="$2"
  if [[ "${UPDATE_GOLDENS:-}" == "1" ]]; then
    if [[ -z "${BUILD_WORKSPACE_DIRECTORY:-}" ]]; then
      echo "UPDATE_GOLDENS=1 needs ./bazelw test (BUILD_WORKSPACE_DIRECTORY is unset)" >&2
      return 1
    fi
    mkdir -p "$(dirname "${BUILD_WORKSPACE_DIRECTORY}/${golden}")"
    cp "$actual" "${BUILD_WORKSPACE_DIRECTORY}/${golden}.tmp.$$" && mv "${BUILD_WORKSPACE_DIRECTORY}/${golden}.tmp.$$" "${BUILD_WORKSPACE_DIRECTORY}/${golden}"
    return 0
  fi
  if ! diff -u "$golden" "$actual"; then
    echo "(rewrite with UPDATE_GOLDENS=1 ./bazelw test <test> after a deliberate change)"
    return 1
  fi
}
