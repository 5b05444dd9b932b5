"""Bazel rules that compile models with the compiler's stage binaries, as ordinary actions.

A model declared in a BUILD file is compiled, cached and (with remote execution) built remotely
like any other target:

    load("//tools/build_defs:model.bzl", "compile_model")

    compile_model(
        name = "digits",                       # -> digits.mlcx
        src = "digits_mlp.py",                 # TVMScript .py, ONNX .onnx or PyTorch FX .fxpb
        params = "params.npz",                 # optional: bound with bind-params
        passes = "default",                    # a named pipeline or pass list (opt --list-passes)
        target = "x86-64-v3",                  # optional: the CPU to compile for (default: native), or a
                                               # list: one executable that runs the best this CPU can
        tuning_db = "records.pb",              # optional: records from //tools:tune
        data = ["weights.bin"],                # optional: ONNX external data beside src
        keep_params_in_input = False,          # optional, ONNX: initializers as parameters of main
        dims = {"batch": "1"},                 # optional, ONNX: sizes of symbolic dimensions
        quantize = "q8",                       # optional: int8 ("q8") or int4 ("q4") matmul weights
    )

`target` is passed to opt and build as --target. The default, "native", is the machine that
runs the action: give a named CPU when actions run remotely or the cache is shared between
machines, since Bazel's cache key sees the flag, not the CPU behind it.

Each stage is its own rule, so each intermediate is a cacheable artifact:
model_import (model -> .irpb), model_opt (.irpb -> .irpb), model_build (.irpb -> .mlcx).

Tuning is a rule too: tune_model(name, src, shards = 4, trials = 64, target = ...) runs
//tools:tune as `shards` actions (each tunes every shards-th task, so they run in parallel,
locally or remotely, and each is cached on its own) and one action that merges their records
into <name>.pb, which compile_model(tuning_db = ":<name>") then uses. Tuning measures the machine
that runs the action: name the target, and pin tuning actions to workers of that CPU
(docs/scale_out.md).
"""

def _run_stage(ctx, executable, arguments, inputs, out, mnemonic, progress_message, use_default_shell_env = False):
    """One stage binary writing one file: the action, and the provider that hands the file on."""
    ctx.actions.run(
        executable = executable,
        arguments = arguments,
        inputs = inputs,
        outputs = [out],
        mnemonic = mnemonic,
        use_default_shell_env = use_default_shell_env,
        progress_message = progress_message,
    )
    return DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))

def _model_import_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".irpb")
    src = ctx.file.src
    if src.extension == "py":
        tool, arguments = ctx.executable._parse, ["--in", src.path, "--out", out.path]
    else:  # .onnx, .fxpb
        tool, arguments = ctx.executable._import, ["--in", src.path, "--out", out.path]
        if ctx.attr.keep_params_in_input:
            arguments.append("--keep_params_in_input")
        if ctx.attr.dims:
            arguments.append("--dim=" + ",".join(["%s=%s" % (k, v) for k, v in ctx.attr.dims.items()]))
    return [_run_stage(ctx, tool, arguments, [src] + ctx.files.data, out, "MlcImport", "Importing model %s" % src.short_path)]

model_import = rule(
    implementation = _model_import_impl,
    doc = "Model (TVMScript .py, ONNX .onnx, PyTorch FX .fxpb) -> IRModule (.irpb), with //frontend:parse or //frontend:import.",
    attrs = {
        "src": attr.label(allow_single_file = [".py", ".onnx", ".fxpb"], mandatory = True),
        "data": attr.label_list(allow_files = True, doc = "files the model reads: ONNX external data beside it"),
        "keep_params_in_input": attr.bool(doc = "ONNX: initializers become parameters of main"),
        "dims": attr.string_dict(doc = "ONNX: sizes of symbolic dimensions, e.g. {\"batch\": \"1\"}"),
        "_parse": attr.label(default = "//frontend:parse", executable = True, cfg = "target"),
        "_import": attr.label(default = "//frontend:import", executable = True, cfg = "target"),
    },
)

def _model_opt_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".irpb")
    passes = ctx.attr.passes
    inputs = [ctx.file.src]
    if ctx.file.params:
        passes = "bind-params{params=%s}" % ctx.file.params.path + ("," + passes if passes else "")
        inputs.append(ctx.file.params)
    if ctx.file.tuning_db:
        inputs.append(ctx.file.tuning_db)
    arguments = ["--in", ctx.file.src.path, "--out", out.path, "--passes=" + passes, "--target=" + ctx.attr.target]
    if ctx.file.tuning_db:
        arguments.append("--tuning_db=" + ctx.file.tuning_db.path)
    if ctx.attr.quantize:
        arguments.append("--quantize=" + ctx.attr.quantize)
    return [_run_stage(ctx, ctx.executable._opt, arguments, inputs, out, "MlcOpt", "Optimizing %s" % ctx.file.src.short_path)]

model_opt = rule(
    implementation = _model_opt_impl,
    doc = "IRModule -> IRModule through a pass pipeline, with //passes:opt.",
    attrs = {
        "src": attr.label(allow_single_file = [".irpb"], mandatory = True),
        "passes": attr.string(default = "default"),
        "target": attr.string(default = "native"),
        "params": attr.label(allow_single_file = [".npz"]),
        "tuning_db": attr.label(allow_single_file = True, doc = "records from //tools:tune"),
        "quantize": attr.string(default = "", doc = "weight-only quantization: q8, q4 or empty (opt --quantize)"),
        "_opt": attr.label(default = "//passes:opt", executable = True, cfg = "target"),
    },
)

def _model_build_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".mlcx")
    return [_run_stage(
        ctx,
        ctx.executable._build,
        ["--in", ctx.file.src.path, "--out", out.path, "--target=" + ctx.attr.target],
        [ctx.file.src],
        out,
        "MlcBuild",
        "Compiling %s" % ctx.file.src.short_path,
        use_default_shell_env = True,  # the system linker needs PATH
    )]

model_build = rule(
    implementation = _model_build_impl,
    doc = "IRModule -> executable (.mlcx), with //codegen:build.",
    attrs = {
        "src": attr.label(allow_single_file = [".irpb"], mandatory = True),
        "target": attr.string(default = "native"),
        "_build": attr.label(default = "//codegen:build", executable = True, cfg = "target"),
    },
)

def _model_merge_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".mlcx")
    return [_run_stage(
        ctx,
        ctx.executable._build,
        ["--merge", ",".join([f.path for f in ctx.files.srcs]), "--out", out.path],
        ctx.files.srcs,
        out,
        "MlcMerge",
        "Merging %d targets into %s" % (len(ctx.files.srcs), out.short_path),
    )]

model_merge = rule(
    implementation = _model_merge_impl,
    doc = "Executables for different targets -> one multi-target executable, with //codegen:build --merge.",
    attrs = {
        "srcs": attr.label_list(allow_files = [".mlcx"], mandatory = True),
        "_build": attr.label(default = "//codegen:build", executable = True, cfg = "target"),
    },
)

def _model_tune_impl(ctx):
    n = ctx.attr.shards
    parts = []
    for i in range(n):
        part = ctx.actions.declare_file("%s.shard%d.pb" % (ctx.label.name, i))
        ctx.actions.run(
            executable = ctx.executable._tune,
            arguments = ["--in", ctx.file.src.path, "--db", part.path, "--shard=%d/%d" % (i, n),
                         "--trials=%d" % ctx.attr.trials, "--seed=%d" % ctx.attr.seed,
                         "--target=" + ctx.attr.target, "--passes=" + ctx.attr.passes],
            inputs = [ctx.file.src],
            outputs = [part],
            mnemonic = "MlcTune",
            use_default_shell_env = True,  # candidates are linked by the system linker
            progress_message = "Tuning %s (shard %d of %d)" % (ctx.file.src.short_path, i + 1, n),
        )
        parts.append(part)
    out = ctx.actions.declare_file(ctx.label.name + ".pb")
    return [_run_stage(ctx, ctx.executable._tune, ["--merge", ",".join([p.path for p in parts]), "--db", out.path], parts, out,
                       "MlcTuneMerge", "Merging the tuning records of %s" % ctx.file.src.short_path)]

model_tune = rule(
    implementation = _model_tune_impl,
    doc = "IRModule -> tuning database (.pb): `shards` tuning actions and a merge, with //tools:tune.",
    attrs = {
        "src": attr.label(allow_single_file = [".irpb"], mandatory = True),
        "shards": attr.int(default = 4),
        "trials": attr.int(default = 0, doc = "measurements per shard (0: 16 per task)"),
        "seed": attr.int(default = 1),
        "target": attr.string(default = "native"),
        "passes": attr.string(default = "default"),
        "_tune": attr.label(default = "//tools:tune", executable = True, cfg = "target"),
    },
)

def _import_as(name, src, data, keep_params_in_input, dims, visibility, tags):
    """The model_import target <name>_ir that compile_model and tune_model start from."""
    model_import(name = name + "_ir", src = src, data = data or [], keep_params_in_input = keep_params_in_input,
                 dims = dims or {}, visibility = visibility, tags = tags)
    return ":" + name + "_ir"

def tune_model(name, src, shards = 4, trials = 0, seed = 1, target = "native", passes = "default", data = None,
               keep_params_in_input = False, dims = None, visibility = None, tags = None):
    """src (a model file) -> <name>_ir.irpb -> <name>.pb, the tuning records of its kernels."""
    ir = _import_as(name, src, data, keep_params_in_input, dims, visibility, tags)
    model_tune(name = name, src = ir, shards = shards, trials = trials, seed = seed, target = target,
               passes = passes, visibility = visibility, tags = tags)

def compile_model(name, src, params = None, passes = None, target = "native", tuning_db = None, data = None,
                  keep_params_in_input = False, dims = None, quantize = "", visibility = None, tags = None):
    """src -> <name>_ir.irpb -> <name>_opt.irpb -> <name>.mlcx.

    A list of targets makes <name>_opt_<i> and <name>_<i> per target and merges the executables
    into one multi-target <name>.mlcx (vm/executable_variants.h).
    """
    ir = _import_as(name, src, data, keep_params_in_input, dims, visibility, tags)
    opt_kwargs = {}
    if passes != None:
        opt_kwargs["passes"] = passes
    if type(target) != type([]):
        model_opt(name = name + "_opt", src = ir, params = params, target = target, tuning_db = tuning_db, quantize = quantize, visibility = visibility, tags = tags, **opt_kwargs)
        model_build(name = name, src = ":" + name + "_opt", target = target, visibility = visibility, tags = tags)
        return
    builds = []
    for i, t in enumerate(target):
        model_opt(name = "%s_opt_%d" % (name, i), src = ir, params = params, target = t, tuning_db = tuning_db, quantize = quantize, tags = tags, **opt_kwargs)
        model_build(name = "%s_%d" % (name, i), src = ":%s_opt_%d" % (name, i), target = t, tags = tags)
        builds.append(":%s_%d" % (name, i))
    model_merge(name = name, srcs = builds, visibility = visibility, tags = tags)
