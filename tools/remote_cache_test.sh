#!/usr/bin/env bash
# Bazel's HTTP remote cache carries the model actions: a real cache (nginx serving WebDAV PUT/GET
# on a loopback port, a scratch root), the zoo package built through it by the project's rules,
# then built again from a fresh output base: every model action is a remote cache hit (Bazel's
# execution log says so) and the executables are byte-identical. docs/scale_out.md.
#
# The nested workspace holds the zoo package, model.bzl and the stage binaries this test was
# given (as //frontend:parse, //frontend:import, //passes:opt, //codegen:build), so the nested
# builds run only model actions, not a build of the compiler.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
source tools/testing/checks.sh
t="$TEST_TMPDIR"

ws="$t/ws"
mkdir -p "$ws/frontend" "$ws/passes" "$ws/codegen" "$ws/tools/build_defs" "$ws/testdata/models/zoo"
echo 'workspace(name = "mlc")' > "$ws/WORKSPACE"
cp tools/build_defs/model.bzl "$ws/tools/build_defs/"
touch "$ws/tools/build_defs/BUILD"
cp testdata/models/zoo/BUILD testdata/models/zoo/*.onnx testdata/models/zoo/*.fxpb "$ws/testdata/models/zoo/"
# A prebuilt stage binary as an executable target (sh_binary would pull in rules Bazel fetches).
cat > "$ws/prebuilt.bzl" <<'BZL'
def _impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".exe")
    ctx.actions.symlink(output = out, target_file = ctx.file.src, is_executable = True)
    return [DefaultInfo(executable = out)]

prebuilt_binary = rule(implementation = _impl, executable = True, attrs = {"src": attr.label(allow_single_file = True)})
BZL
touch "$ws/BUILD"
for stage in frontend/parse frontend/import passes/opt codegen/build; do
  cp "$stage" "$ws/$stage.bin"
  [[ -f "$ws/$(dirname "$stage")/BUILD" ]] || echo 'load("//:prebuilt.bzl", "prebuilt_binary")' > "$ws/$(dirname "$stage")/BUILD"
  printf 'prebuilt_binary(name = "%s", src = "%s.bin", visibility = ["//visibility:public"])\n' \
    "$(basename "$stage")" "$(basename "$stage")" >> "$ws/$(dirname "$stage")/BUILD"
done

# The cache: nginx with WebDAV on a free loopback port.
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$t/cache" "$t/nginx"
cat > "$t/nginx.conf" <<CONF
daemon off;
# Workers as this user (as root nginx would drop to nobody, who cannot reach a test's temp dir;
# as anyone else the line is ignored).
user $(id -un) $(id -gn);
error_log $t/nginx/error.log;
pid $t/nginx/nginx.pid;
events {}
http {
  access_log $t/nginx/access.log;
  client_body_temp_path $t/nginx/body;
  server {
    listen 127.0.0.1:$port;
    root $t/cache;
    client_max_body_size 0;
    location / { dav_methods PUT; create_full_put_path on; }
  }
}
CONF
/usr/sbin/nginx -c "$t/nginx.conf" -p "$t/nginx" &
nginx_pid=$!
# The system bazelrc (Debian: /etc/bazel/bazelrc) is kept: it points at the installed server.
bazel_in() { bazel --output_user_root="$1" --nohome_rc "${@:2}"; }
cleanup() {
  kill "$nginx_pid" 2>/dev/null || true
  for root in "$t/root1" "$t/root2"; do (cd "$ws" && bazel_in "$root" shutdown >/dev/null 2>&1) || true; done
}
trap cleanup EXIT
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done

targets=(//testdata/models/zoo:cnn_onnx //testdata/models/zoo:cnn_fx //testdata/models/zoo:attn_onnx //testdata/models/zoo:attn_fx)
build() {  # build OUTPUT_ROOT EXEC_LOG
  (cd "$ws" && bazel_in "$1" build --remote_cache="http://127.0.0.1:$port" --spawn_strategy=local \
     --execution_log_json_file="$2" "${targets[@]}" > "$2.out" 2>&1) || { cat "$2.out"; return 1; }
}
check "the zoo builds through the remote cache" build "$t/root1" "$t/log1.json"
mkdir -p "$t/first"
cp "$ws"/bazel-bin/testdata/models/zoo/*.mlcx "$t/first/"
check "the first build stored entries in the cache" test -n "$(find "$t/cache/cas" -type f 2>/dev/null | head -1)"

check "a fresh output base builds it again" build "$t/root2" "$t/log2.json"
check "the execution logs show the cache hits" /usr/bin/python3 - "$t/log1.json" "$t/log2.json" <<'PY'
import json, re, sys

def spawns(path):  # the log is a stream of JSON objects
    text, decoder, out, i = open(path).read(), json.JSONDecoder(), [], 0
    while True:
        m = re.compile(r"\S").search(text, i)
        if not m:
            return out
        obj, i = decoder.raw_decode(text, m.start())
        out.append(obj)

model = ("MlcImport", "MlcOpt", "MlcBuild")
first = [s for s in spawns(sys.argv[1]) if s.get("mnemonic") in model]
second = [s for s in spawns(sys.argv[2]) if s.get("mnemonic") in model]
ok = len(first) == 12 and not any(s.get("remoteCacheHit") for s in first)
print(("ok" if ok else "FAILED") + f": the first build ran all {len(first)} model actions (4 models x 3 stages)")
hits = [s for s in second if s.get("remoteCacheHit")]
ok2 = len(second) == 12 and len(hits) == len(second)
print(("ok" if ok2 else "FAILED") + f": the second build served {len(hits)} of {len(second)} model actions from the remote cache")
sys.exit(0 if ok and ok2 else 1)
PY
for f in "$t"/first/*.mlcx; do
  check "$(basename "$f") is byte-identical from the cache" cmp -s "$f" "$ws/bazel-bin/testdata/models/zoo/$(basename "$f")"
done

finish
