#!/usr/bin/env bash
# The converter plug-in: without it the FX importer refuses PixelShuffle naming the module;
# with it (import --converter_plugin, pipeline --converter-plugin) the model compiles and
# matches PyTorch.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
source tools/testing/checks.sh
t="${TEST_TMPDIR}"
plugin="$PWD/frontend/torch/contrib/libpixel_shuffle_converter.so"

/usr/bin/python3 frontend/torch/export_fx.py --example unsupported --out "$t/m.fxpb" --inputs "$t/x.npy" \
  --reference "$t/ref.npy" 2> /dev/null
refused "without the plug-in, PixelShuffle is refused by name" "PixelShuffle" \
  frontend/import --in "$t/m.fxpb" --out "$t/m.irpb"
check "with the plug-in, import succeeds" frontend/import --in "$t/m.fxpb" --out "$t/m.irpb" --converter_plugin="$plugin"
check "the pipeline with --converter-plugin matches PyTorch" bash -c \
  "tools/pipeline '$t/m.fxpb' --inputs '$t/x.npy' --out '$t/work' --no-cache --converter-plugin='$plugin' > '$t/log' 2>&1 &&
   source tools/testing/checks.sh && matches_reference '$t/work/out0.npy' '$t/ref.npy'"
refused "a plug-in that does not load is an error naming it" "cannot load converter plug-in" \
  frontend/import --in "$t/m.fxpb" --out "$t/m2.irpb" --converter_plugin="$t/missing.so"
finish
