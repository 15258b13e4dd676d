#!/usr/bin/env python3
"""make_fixtures.py OUTDIR [WASMGRAPH]: writes the module ABI fixtures that both hosts run
(tests/abi/fixtures.tsv gives each file's verdict; docs/abi.md is the contract they test).

Every fixture is generated, never committed: small modules written in WebAssembly text
(assembled by wabt's wat2wasm, which scripts/setup.sh installs) with a `wasmgraph`
metadata section, each following the ABI or breaking one rule of it; and, when the path
of a built `wasmgraph` is given, a real module (models/lenet5-fashion.onnx compiled by it)
with copies broken one way each. Needs only python3's standard library.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from wasm_bytes import custom as custom_section, section  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = None
TMP = None


def custom(payload):
    return custom_section("wasmgraph", payload)


def put(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def tensor(name, shape, dtype="float32", size=4, nbytes=None):
    n = size
    for d in shape:
        n *= d
    return {"name": name, "dtype": dtype, "shape": shape, "bytes": n if nbytes is None else nbytes}


def meta(**over):
    """Metadata as the compiler writes it (src/codegen/metadata.c), members overridden or,
    with the value None, left out."""
    m = {"abi": 1, "name": "fixture", "producer": "tests/abi", "opset": 13,
         "inputs": [tensor("x", [1, 4])], "outputs": [tensor("y", [1, 4])],
         "options": {"simd": False, "relaxed_simd": False, "opt_level": 2},
         "arena_bytes": 32, "weight_bytes": 64, "memory_bytes": 65536, "weights_base": 16384,
         "step_weights": [0, 64], "compiler": "wasmgraph tests/abi"}
    for k, v in over.items():
        if v is None:
            m.pop(k, None)
        else:
            m[k] = v
    return json.dumps(m, separators=(",", ":")).encode()


def func(name, params, result, body):
    p = " (param i32)" * params
    return f'  (func (export "{name}"){p} (result {result}) {body})\n'


def wat(memory='(memory (export "memory") 1)', imports="", abi=1, in_ptr=1024, out_ptr=2048,
        run_status=0, run_sig=(0, "i32"), run_name="wg_run", steps=2, step_sig=(1, "i32"),
        profile_steps=None, extra="", run_body=None):
    """A module with the ABI's exports; each argument breaks or changes one of them (in_ptr
    and run_body may also be the functions' bodies, in WebAssembly text)."""
    src = "(module\n" + imports + "  " + memory + "\n"
    src += func("wg_abi_version", 0, "i32", f"i32.const {abi}")
    src += func("wg_input_ptr", 1, "i32", in_ptr if isinstance(in_ptr, str) else f"i32.const {in_ptr}")
    src += func("wg_output_ptr", 1, "i32", f"i32.const {out_ptr}")
    result = run_sig[1]
    src += func(run_name, run_sig[0], result, run_body or f"{result}.const {run_status}")
    if steps is not None:
        src += func("wg_run_steps", 0, "i32", f"i32.const {steps}")
        src += func("wg_run_step", step_sig[0], step_sig[1], f"{step_sig[1]}.const 0")
    if profile_steps is not None:
        src += func("wg_profile_steps", 0, "i32", f"i32.const {profile_steps}")
        src += func("wg_profile_step", 1, "i32", "i32.const 0")
    src += extra + ")\n"
    path = os.path.join(TMP, "m.wat")
    with open(path, "w") as f:
        f.write(src)
    dst = os.path.join(TMP, "m.wasm")
    subprocess.run(["wat2wasm", "--enable-all", path, "-o", dst], check=True)
    with open(dst, "rb") as f:
        return f.read()


def sections(data):
    """[(id, payload bytes)] of a module (header skipped)."""
    out, p = [], 8
    while p < len(data):
        sid = data[p]
        p += 1
        size = shift = 0
        while True:
            b = data[p]
            p += 1
            size |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        out.append((sid, data[p:p + size]))
        p += size
    return out


def with_meta(data, text):
    """data with its `wasmgraph` section's JSON replaced by text (the section kept in place)."""
    out = bytearray(data[:8])
    for sid, body in sections(data):
        name = b"\x09wasmgraph"
        if sid == 0 and body.startswith(name):
            out += custom(text)
        else:
            out += section(sid, body)
    return bytes(out)


def meta_of(data):
    for sid, body in sections(data):
        if sid == 0 and body.startswith(b"\x09wasmgraph"):
            return json.loads(body[10:])
    raise SystemExit("make_fixtures: the compiled module has no wasmgraph section")


def wat_fixtures():
    good = wat()
    steps = [{"op": "Add", "name": "a", "output": "t"}, {"op": "Add", "name": "b", "output": "y"}]
    put("ok_full.wasm", wat(profile_steps=2) + custom(meta(profile=steps)))
    put("ok_minimal.wasm", wat(steps=None) + custom(json.dumps(
        {"abi": 1, "inputs": [tensor("x", [1, 4])], "outputs": [tensor("y", [1, 4])]}).encode()))
    put("ok_no_inputs.wasm", good + custom(meta(inputs=[])))

    # The file itself
    put("bad_magic.wasm", b"\0asn" + good[4:] + custom(meta()))
    put("truncated.wasm", (good + custom(meta()))[: len(good) // 2])
    put("no_section.wasm", good)
    put("dup_section.wasm", good + custom(meta()) + custom(meta(name="other")))

    # Metadata
    put("abi_2.wasm", good + custom(meta(abi=2)))
    put("abi_3.wasm", good + custom(meta(abi=3)))

    # ABI 2: inputs and outputs that are parts of sequence and optional values
    def part(name, shape, value, kind, holds, p, dtype="float32", size=4):
        t = tensor(name, shape, dtype, size)
        t["value"] = {"name": value, "kind": kind, "holds": holds, "part": p}
        return t
    seq_in = [part("x", [1, 4], "s", "sequence", "sequence", 0)]
    opt_out = [part("y", [1, 4], "o", "optional", "tensor", 0),
               part("o[present]", [], "o", "optional", "tensor", "present", "bool", 1)]
    put("values_ok.wasm", wat(abi=2) + custom(meta(abi=2, inputs=seq_in)))
    put("values_bad_kind.wasm", wat(abi=2) + custom(meta(abi=2, inputs=[
        part("x", [1, 4], "s", "map", "tensor", 0)])))
    put("values_flag_not_bool.wasm", wat(abi=2) + custom(meta(abi=2, outputs=[
        opt_out[0], part("o[present]", [], "o", "optional", "tensor", "present", "int32", 4)])))
    put("abi_missing.wasm", good + custom(meta(abi=None)))
    put("meta_not_json.wasm", good + custom(b'{"abi":1,"inputs":['))
    put("meta_not_utf8.wasm", good + custom(meta(name="\udcff").replace(b'"\\udcff"', b'"\xff"')))
    put("meta_not_object.wasm", good + custom(b"[1]"))
    put("name_not_string.wasm", good + custom(meta(producer=7)))
    put("opset_negative.wasm", good + custom(meta(opset=-1)))
    put("options_not_object.wasm", good + custom(meta(options=[1])))
    put("no_outputs.wasm", good + custom(meta(outputs=[])))
    put("outputs_missing.wasm", good + custom(meta(outputs=None)))
    put("tensor_no_name.wasm", good + custom(meta(inputs=[{"dtype": "float32", "shape": [4], "bytes": 16}])))
    put("tensor_two_names.wasm", good + custom(meta(inputs=[tensor("x", [1, 4]), tensor("x", [1, 4])])))
    put("dtype_unknown.wasm", good + custom(meta(inputs=[tensor("x", [1, 4], "float128")])))
    put("dtype_alias.wasm", good + custom(meta(inputs=[tensor("x", [1, 4], "float")])))
    put("bytes_lie.wasm", good + custom(meta(inputs=[tensor("x", [1, 4], nbytes=12)])))
    put("rank_9.wasm", good + custom(meta(inputs=[tensor("x", [1] * 9)])))
    put("dim_over_cap.wasm", good + custom(meta(inputs=[tensor("x", [2 ** 31, 0])])))
    put("dim_at_cap.wasm", good + custom(meta(inputs=[tensor("x", [2 ** 31 - 1, 0])])))
    put("elements_over_cap.wasm",
        good + custom(meta(inputs=[tensor("x", [65536, 65536], "uint8", 1)])))
    many = [tensor(f"x{i}", [0]) for i in range(1025)]
    put("inputs_over_cap.wasm", good + custom(meta(inputs=many)))
    put("inputs_at_cap.wasm", good + custom(meta(inputs=many[:1024])))
    put("step_weights_decreasing.wasm", good + custom(meta(step_weights=[64, 0])))
    put("step_weights_over_weights.wasm", good + custom(meta(step_weights=[0, 65])))
    put("step_weights_not_array.wasm", good + custom(meta(step_weights=3)))
    put("profile_no_op.wasm", wat(profile_steps=1) + custom(meta(profile=[{"name": "a"}])))

    # The module's interface
    imp = '  (import "env" "log" (func (param i32)))\n'
    put("import.wasm", wat(imports=imp) + custom(meta()))
    put("shared_memory.wasm", wat(memory='(memory (export "memory") 1 1 shared)') + custom(meta()))
    put("memory64.wasm", wat(memory='(memory (export "memory") i64 1)') + custom(meta()))
    put("memory_not_exported.wasm", wat(memory="(memory 1)") + custom(meta()))
    put("memory_is_global.wasm", wat(memory='(memory 1) (global (export "memory") i32 (i32.const 0))')
        + custom(meta()))
    put("no_run.wasm", wat(run_name="wg_go") + custom(meta()))
    put("run_takes_i32.wasm", wat(run_sig=(1, "i32")) + custom(meta()))
    put("run_returns_i64.wasm", wat(run_sig=(0, "i64")) + custom(meta()))
    put("no_step_exports.wasm", wat(steps=None) + custom(meta()))
    put("step_wrong_type.wasm", wat(step_sig=(0, "i32")) + custom(meta(step_weights=None)))
    put("profile_no_exports.wasm", good + custom(meta(profile=[{"op": "Add", "name": "a"}])))

    # What the instance's exports return (checked when a session is created)
    put("abi_export_2.wasm", wat(abi=2) + custom(meta()))
    put("input_past_end.wasm", wat(in_ptr=65530) + custom(meta()))
    put("output_misaligned.wasm", wat(out_ptr=2050) + custom(meta()))
    put("run_steps_count.wasm", wat(steps=3) + custom(meta()))
    put("profile_steps_count.wasm", wat(profile_steps=3) + custom(meta(
        profile=[{"op": "Add", "name": "a"}, {"op": "Add", "name": "b"}])))

    # Version 2: symbolic dims (docs/abi.md "Version 2")
    dims_ptr = lambda at=4096, params=0: func("wg_dims_ptr", params, "i32", f"i32.const {at}")
    syms = [{"name": "n", "min": 1, "max": 4}]
    sx = lambda name="x", sym="n", nbytes=64: {"name": name, "dtype": "float32", "shape": [{"sym": sym}, 4],
                                               "bytes": nbytes}
    v2 = lambda **over: meta(**{"abi": 2, "symbols": syms, "inputs": [sx()], "outputs": [sx("y")], **over})
    put("v2_ok.wasm", wat(abi=2, extra=dims_ptr()) + custom(v2()))
    put("v2_no_dims_ptr.wasm", wat(abi=2) + custom(v2()))
    put("v2_dims_ptr_type.wasm", wat(abi=2, extra=dims_ptr(params=1)) + custom(v2()))
    put("v2_sym_unknown.wasm", wat(abi=2, extra=dims_ptr()) + custom(v2(inputs=[sx(sym="m")])))
    put("v2_sym_range.wasm", wat(abi=2, extra=dims_ptr()) + custom(v2(symbols=[{"name": "n", "min": -1, "max": 4}])))
    put("v2_sym_dup.wasm", wat(abi=2, extra=dims_ptr()) + custom(v2(symbols=syms + syms)))
    put("v2_sym_in_v1.wasm", good + custom(meta(inputs=[sx()])))
    put("v2_bytes_lie.wasm", wat(abi=2, extra=dims_ptr()) + custom(v2(inputs=[sx(nbytes=60)])))
    put("v2_dims_ptr_past_end.wasm", wat(abi=2, extra=dims_ptr(65534)) + custom(v2()))
    put("v2_status_dims.wasm", wat(abi=2, extra=dims_ptr(), run_status=3) + custom(v2()))
    # a symbol of even sizes only ("step"), and a step that does not divide its range
    put("v2_step_ok.wasm", wat(abi=2, extra=dims_ptr()) +
        custom(v2(symbols=[{"name": "n", "min": 2, "max": 4, "step": 2}])))
    put("v2_step_bad.wasm", wat(abi=2, extra=dims_ptr()) +
        custom(v2(symbols=[{"name": "n", "min": 2, "max": 4, "step": 3}])))
    # a symbol from 0 (a decoder's empty past): inputs and outputs of zero elements
    put("v2_zero_ok.wasm", wat(abi=2, extra=dims_ptr()) + custom(v2(symbols=[{"name": "n", "min": 0, "max": 4}])))

    # Empty inputs (docs/abi.md "Empty inputs"): n in 0..4, x and e of [n, 4] at 1024 and
    # 1088, e may be empty; wg_input_empty_ptr() = 4352. wg_run returns 18
    # (WGK_ERR_EMPTY_INPUT) when e is given empty and x[0] != 0 (the branch that reads e),
    # else 0
    empty_ptr = lambda at=4352: func("wg_input_empty_ptr", 0, "i32", f"i32.const {at}")
    at_i = "(i32.add (i32.const 1024) (i32.mul (local.get 0) (i32.const 64)))"
    reads_e = ("(if (result i32) (i32.and (i32.load (i32.const 4356)) (f32.ne (f32.load (i32.const 1024)) "
               "(f32.const 0))) (then (i32.const 18)) (else (i32.const 0)))")
    e_in = {**sx("e"), "may_be_empty": True}
    ve = lambda inputs=None, outputs=None: v2(symbols=[{"name": "n", "min": 0, "max": 4}],
                                              inputs=inputs or [sx(), e_in], outputs=outputs or [sx("y")])
    both = dims_ptr() + empty_ptr()
    put("v2_empty_ok.wasm", wat(abi=2, in_ptr=at_i, run_body=reads_e, extra=both) + custom(ve()))
    put("v2_empty_noexport.wasm", wat(abi=2, in_ptr=at_i, extra=dims_ptr()) + custom(ve()))
    put("v2_empty_fixed.wasm", wat(abi=2, in_ptr=at_i, extra=both) +
        custom(ve(inputs=[sx(), {**tensor("e", [1, 4]), "may_be_empty": True}])))
    put("v2_empty_not_bool.wasm", wat(abi=2, in_ptr=at_i, extra=both) + custom(ve(inputs=[sx(), {**e_in, "may_be_empty": 1}])))
    put("v2_empty_output.wasm", wat(abi=2, in_ptr=at_i, extra=both) + custom(ve(outputs=[{**sx("y"), "may_be_empty": True}])))
    put("v2_empty_ptr_past_end.wasm", wat(abi=2, in_ptr=at_i, extra=dims_ptr() + empty_ptr(65532)) + custom(ve()))
    put("v2_status_empty.wasm", wat(abi=2, in_ptr=at_i, run_status=18, extra=both) + custom(ve()))

    # Resident KV caches (docs/abi.md "Resident KV caches"): past [p, 4] at 1024 (p in 0..3),
    # present [t, 4] at 2048, t = p + 1 (a sum); one pair along axis 0 of capacity 4;
    # wg_cache_mode_ptr() = 4400. wg_run computes nothing.
    cache_ptr = lambda at=4400: func("wg_cache_mode_ptr", 0, "i32", f"i32.const {at}")
    csyms = [{"name": "p", "min": 0, "max": 3},
             {"name": "t", "min": 1, "max": 4, "sum": {"terms": [[1, "p"]], "plus": 1}}]
    pair = {"past": 0, "present": 0, "axis": 0, "capacity": 4}
    vc = lambda pairs=None, **over: v2(symbols=csyms, inputs=[sx("past", "p", 48)], outputs=[sx("present", "t", 64)],
                                       cache_pairs=[pair] if pairs is None else pairs, **over)
    cboth = dims_ptr() + cache_ptr()
    put("v2_cache_ok.wasm", wat(abi=2, extra=cboth) + custom(vc()))
    put("v2_cache_noexport.wasm", wat(abi=2, extra=dims_ptr()) + custom(vc()))
    put("v2_cache_capacity.wasm", wat(abi=2, extra=cboth) + custom(vc([{**pair, "capacity": 5}])))
    put("v2_cache_fixed_axis.wasm", wat(abi=2, extra=cboth) + custom(vc([{**pair, "axis": 1, "capacity": 4}])))
    put("v2_cache_index.wasm", wat(abi=2, extra=cboth) + custom(vc([{**pair, "present": 1}])))
    put("v2_cache_twice.wasm", wat(abi=2, extra=cboth) + custom(vc([pair, pair])))
    put("v2_cache_not_int.wasm", wat(abi=2, extra=cboth) + custom(vc([{**pair, "axis": "0"}])))
    put("v2_cache_not_array.wasm", wat(abi=2, extra=cboth) + custom(vc(pair)))
    put("v2_cache_ptr_past_end.wasm", wat(abi=2, extra=dims_ptr() + cache_ptr(65534)) + custom(vc()))
    put("v2_status_cache.wasm", wat(abi=2, run_status=22, extra=cboth) + custom(vc()))

    # Version 2: data-dependent output dims (docs/abi.md "Run-time output dims"): y is
    # [1, {"max": 4}]; wg_output_dims_ptr writes [1, count] at 8192 and returns it
    out_dims = lambda count=3: func("wg_output_dims_ptr", 1, "i32",
                                    f"(i32.store (i32.const 8192) (i32.const 1)) "
                                    f"(i32.store (i32.const 8196) (i32.const {count})) (i32.const 8192)")
    by = {"name": "y", "dtype": "float32", "shape": [1, {"max": 4}], "bytes": 16}
    bx = {"name": "x", "dtype": "float32", "shape": [1, {"max": 4}], "bytes": 16}
    put("v2_outdims_ok.wasm", wat(abi=2, extra=out_dims()) + custom(meta(abi=2, outputs=[by])))
    put("v2_outdims_over.wasm", wat(abi=2, extra=out_dims(5)) + custom(meta(abi=2, outputs=[by])))
    put("v2_outdims_noexport.wasm", wat(abi=2) + custom(meta(abi=2, outputs=[by])))
    put("v2_outdims_input.wasm", wat(abi=2, extra=out_dims()) + custom(meta(abi=2, inputs=[bx], outputs=[by])))

    # Statuses wg_run returns
    put("status_index.wasm", wat(run_status=2) + custom(meta()))
    put("status_unknown.wasm", wat(run_status=7) + custom(meta()))


def real_fixtures(wasmgraph):
    real = os.path.join(OUT, "real_ok.wasm")
    subprocess.run([wasmgraph, "compile", os.path.join(ROOT, "models", "lenet5-fashion.onnx"),
                    "-o", real, "--quiet"], check=True)
    with open(real, "rb") as f:
        data = f.read()
    m = meta_of(data)
    text = lambda **over: json.dumps({**m, **over}, separators=(",", ":")).encode()
    put("real_truncated.wasm", data[: len(data) // 2])
    put("real_dup_section.wasm", data + custom(text()))
    put("real_abi_2.wasm", with_meta(data, text(abi=2)))
    put("real_abi_3.wasm", with_meta(data, text(abi=3)))
    put("real_inputs_over_cap.wasm", with_meta(data, text(inputs=[tensor(f"x{i}", [0]) for i in range(1025)])))
    put("real_step_weights_short.wasm", with_meta(data, text(step_weights=m["step_weights"][:-1])))


def main():
    global OUT, TMP
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    OUT = sys.argv[1]
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        TMP = tmp
        wat_fixtures()
    if len(sys.argv) == 3:
        real_fixtures(sys.argv[2])


main()
