"""hf_fp16.py: float32 -> float16 conversion of an ONNX model the way transformers.js makes
its *_fp16.onnx files (its scripts/float16.py, a reworked copy of onnxconverter-common's
converter): every float tensor becomes float16 except around the ops of a block list,
which stay float32 with Casts inserted before and after them; keep_io_types keeps the
graph's inputs and outputs float32 with Casts at the edges. Our own code: onnxconverter-
common's converter (1.16) fails on the exports here (type conflicts inside the merged
decoders' If branches and at rotary MatMuls, and it loops for ever with Cast blocked).

Rules (transformers.js' behaviour):
  * float initializers and float tensors in attributes (Constant, ConstantOfShape) become
    float16, finite values clamped: |x| > 1e4 -> 1e4, 0 < |x| < 1e-7 -> 1e-7 (inf stays);
    an initializer that a blocked op reads stays float32;
  * a blocked op (the model's Cast nodes among them) reads float32 and writes float32;
  * an If/Loop body's float outputs are float16 (both branches alike);
  * Cast pairs that change nothing (to float32 and back, or to the type it already has)
    are removed, and nodes are left in topological order.
Types come from onnx's shape inference; an op it has no schema for (com.microsoft's
MatMulNBits in q4f16) gets the type of its first input.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16
MIN_POSITIVE, MAX_FINITE = 1e-7, 1e4


def clamp_to_fp16(a):
    """float32 array -> float16 array, with transformers.js' clamping of magnitudes."""
    a = np.array(a, dtype=np.float32)
    finite = np.isfinite(a)
    big = finite & (np.abs(a) > MAX_FINITE)
    a[big] = np.sign(a[big]) * MAX_FINITE
    small = (a != 0) & (np.abs(a) < MIN_POSITIVE)
    a[small] = np.sign(a[small]) * MIN_POSITIVE
    return a.astype(np.float16)


def tensor_to_fp16(t):
    """A float32 TensorProto converted in place (external data must be loaded)."""
    arr = numpy_helper.to_array(t)
    t.CopyFrom(numpy_helper.from_array(clamp_to_fp16(arr), t.name))


class Scopes:
    """The model's graphs (the main graph first, each body after the graph holding it) and
    where each name is defined. A tensor is (graph index, name): the branches of an If may
    use the same names for different tensors, and a body sees the names of the graphs
    around it."""

    def __init__(self, model):
        self.graphs, self.parent = [], []

        def walk(graph, parent):
            self.graphs.append(graph)
            self.parent.append(parent)
            me = len(self.graphs) - 1
            for node in graph.node:
                for attr in node.attribute:
                    if attr.type == onnx.AttributeProto.GRAPH:
                        walk(attr.g, me)
                    for g in attr.graphs:
                        walk(g, me)
        walk(model.graph, -1)
        self.defined = []   # per graph: name -> node index, or -1 for inputs and initializers
        for g in self.graphs:
            d = {vi.name: -1 for vi in g.input}
            d.update({t.name: -1 for t in g.initializer})
            for ni, node in enumerate(g.node):
                d.update({o: ni for o in node.output if o})
            self.defined.append(d)

    def resolve(self, gi, name):
        """The tensor a name read in graph gi is: (defining graph, name), or None."""
        while gi >= 0 and name:
            if name in self.defined[gi]:
                return (gi, name)
            gi = self.parent[gi]
        return None

    def producer(self, key):
        gi, name = key
        ni = self.defined[gi][name]
        return self.graphs[gi].node[ni] if ni >= 0 else None


def elem_types(model):
    """(graph index, name) -> elem type, from shape inference; the outputs of ops without a
    schema take their first input's type (repeated until nothing changes). Changes model:
    adds those outputs' types as value_info."""
    for _ in range(8):
        inferred = onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False)
        sc = Scopes(inferred)  # same structure, same graph indices as the model's
        types = {}
        for gi, g in enumerate(sc.graphs):
            for vi in list(g.input) + list(g.output) + list(g.value_info):
                key = sc.resolve(gi, vi.name)
                if key and vi.type.tensor_type.elem_type:
                    types[key] = vi.type.tensor_type.elem_type
            for t in g.initializer:
                types[(gi, t.name)] = t.data_type
        added = False
        for gi, g in enumerate(Scopes(model).graphs):
            for node in g.node:
                first = sc.resolve(gi, node.input[0]) if node.input else None
                if node.domain in ("", "ai.onnx") or first not in types:
                    continue
                for out in node.output:
                    if out and (gi, out) not in types:
                        types[(gi, out)] = types[first]
                        g.value_info.append(helper.make_tensor_value_info(out, types[first], None))
                        added = True
        if not added:
            return types
    return types


def set_nodes(graph, nodes):
    """Replaces graph's nodes by `nodes` (copies: some may be the graph's own)."""
    copies = [onnx.NodeProto.FromString(n.SerializeToString()) for n in nodes]
    del graph.node[:]
    graph.node.extend(copies)


def convert_float_to_float16(model, op_block_list, keep_io_types=True):
    """Converts `model` in place and returns it."""
    assert keep_io_types, "only keep_io_types=True is implemented (what transformers.js uses)"
    blocked_ops = set(op_block_list)
    top = model.graph

    # The graph's float outputs: produced in float16 as NAME.fp16, then a final Cast to NAME.
    # Found by a first inference; renamed before the one the conversion works from.
    types = elem_types(model)
    sc = Scopes(model)
    renamed = {o.name: o.name + ".fp16" for o in top.output
               if types.get((0, o.name)) == F32 and sc.defined[0].get(o.name, -1) >= 0}
    final_casts = set()
    for gi, g in enumerate(sc.graphs):
        for node in g.node:
            for i, name in enumerate(node.input):
                if name in renamed and sc.resolve(gi, name) == (0, name):
                    node.input[i] = renamed[name]
            if gi == 0:
                for i, name in enumerate(node.output):
                    if name in renamed:
                        node.output[i] = renamed[name]
    for vi in top.value_info:
        if vi.name in renamed:
            vi.name = renamed[vi.name]
    for old, new in renamed.items():
        top.node.append(helper.make_node("Cast", [new], [old], to=F32, name=old + ".cast"))
        final_casts.add(old + ".cast")

    types = elem_types(model)
    sc = Scopes(model)

    def is_float(key):
        return types.get(key) == F32

    def blocked(node):  # the final Casts read float16
        return node.op_type in blocked_ops and node.name not in final_casts

    # float32 stays: the graph's inputs, outputs of blocked ops (the final Casts' too),
    # initializers a blocked op reads; every other float tensor becomes float16
    keep32 = {(0, vi.name) for vi in top.input if is_float((0, vi.name))}
    initializers = {(gi, t.name) for gi, g in enumerate(sc.graphs) for t in g.initializer}
    for gi, g in enumerate(sc.graphs):
        for node in g.node:
            if node.op_type in blocked_ops:
                keep32.update((gi, o) for o in node.output if is_float((gi, o)))
            if blocked(node):
                reads = (sc.resolve(gi, n) for n in node.input)
                keep32.update(k for k in reads if k in initializers and is_float(k))

    def new_type(key):
        return F32 if key in keep32 else F16

    after = {}  # (graph index, node index or -1) -> the Casts to lay out just after it
    casts = {}  # (tensor, to) -> the Cast's output name

    def cast_of(key, to):
        if (key, to) not in casts:
            gi, name = key
            out = f"{name}.to{'16' if to == F16 else '32'}"
            casts[(key, to)] = out
            after.setdefault((gi, sc.defined[gi][name]), []).append(
                helper.make_node("Cast", [name], [out], to=to, name=out))
        return casts[(key, to)]

    # every float input in the type its op wants; bodies' float outputs in float16
    for gi, g in enumerate(sc.graphs):
        for node in g.node:
            want = F32 if blocked(node) else F16
            for i, name in enumerate(node.input):
                key = sc.resolve(gi, name)
                if key and is_float(key) and new_type(key) != want:
                    node.input[i] = cast_of(key, want)
        if gi > 0:
            for o in g.output:
                key = sc.resolve(gi, o.name)
                if key and is_float(key):
                    if new_type(key) == F32:
                        o.name = cast_of(key, F16)
                    o.type.tensor_type.elem_type = F16

    # data: initializers and attribute tensors of the ops that run in float16
    for gi, g in enumerate(sc.graphs):
        for t in g.initializer:
            if is_float((gi, t.name)) and new_type((gi, t.name)) == F16:
                tensor_to_fp16(t)
        for node in g.node:
            if node.op_type in blocked_ops:
                continue
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.TENSOR and attr.t.data_type == F32:
                    tensor_to_fp16(attr.t)
                for t in attr.tensors:
                    if t.data_type == F32:
                        tensor_to_fp16(t)
                if node.op_type == "Constant" and attr.name in ("value_float", "value_floats"):
                    value = attr.f if attr.name == "value_float" else list(attr.floats)
                    attr.CopyFrom(helper.make_attribute("value", numpy_helper.from_array(clamp_to_fp16(value))))
                if attr.name == "dtype" and attr.i == F32:  # RandomNormal, EyeLike, ...
                    attr.i = F16

    # declared types (the main graph's inputs and outputs stay float32)
    for gi, g in enumerate(sc.graphs):
        for vi in list(g.value_info) + (list(g.input) if gi > 0 else []):
            key = sc.resolve(gi, vi.name)
            if key and is_float(key):
                vi.type.tensor_type.elem_type = new_type(key)

    # lay the Casts out just after what they read, bodies before the graphs holding them
    for gi in reversed(range(len(sc.graphs))):
        g = sc.graphs[gi]
        nodes = list(after.get((gi, -1), []))
        for ni, node in enumerate(g.node):
            nodes.append(node)
            nodes.extend(after.get((gi, ni), []))
        set_nodes(g, nodes)
    remove_redundant_casts(model)
    return model


def remove_redundant_casts(model):
    """Drops a Cast to the type its input already has and a float16 Cast of a float32 Cast
    of a float16 tensor, its readers reading that tensor instead; then the Casts nobody
    reads. Never a Cast that writes a graph's output."""
    types = elem_types(model)
    sc = Scopes(model)
    alias = {}  # Cast output (graph index, name) -> the name its readers read instead
    for gi, g in enumerate(sc.graphs):
        outputs = {o.name for o in g.output}
        for node in g.node:
            if node.op_type != "Cast" or node.output[0] in outputs:
                continue
            src = sc.resolve(gi, node.input[0])
            if src is None:
                continue
            src = alias.get(src, src)
            to = node.attribute[0].i
            up = sc.producer(src) if src[1] in sc.defined[src[0]] else None
            if types.get(src) == to:
                alias[(gi, node.output[0])] = src
            elif to == F16 and up is not None and up.op_type == "Cast" and up.attribute[0].i == F32:
                upsrc = sc.resolve(src[0], up.input[0])
                if upsrc and types.get(upsrc) == F16:
                    alias[(gi, node.output[0])] = alias.get(upsrc, upsrc)
    if not alias:
        return
    for gi, g in enumerate(sc.graphs):
        for node in g.node:
            for i, name in enumerate(node.input):
                key = sc.resolve(gi, name)
                if key in alias:
                    node.input[i] = alias[key][1]
    # drop the Casts nothing reads now (repeated: a dropped Cast may free another)
    while True:
        sc = Scopes(model)
        read = {sc.resolve(gi, n) for gi, g in enumerate(sc.graphs) for node in g.node for n in node.input}
        read |= {sc.resolve(gi, o.name) for gi, g in enumerate(sc.graphs) for o in g.output}
        dropped = False
        for gi in reversed(range(len(sc.graphs))):
            g = sc.graphs[gi]
            keep = [n for n in g.node if n.op_type != "Cast" or (gi, n.output[0]) in read]
            if len(keep) != len(g.node):
                set_nodes(g, keep)
                dropped = True
        if not dropped:
            return
