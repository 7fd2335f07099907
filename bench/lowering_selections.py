"""Whether the detectors' selections on IREE are the interpreter's: each zoo
model's first nn.top_k or nn.non_max_suppression is made the graph's output
(with its inputs), lowered, compiled and run by IREE on the stored inputs; the
table says whether IREE's selection equals the interpreter's on the same
inputs as IREE computed them, and on the interpreter's own.

Usage: python bench/lowering_selections.py [--zoo /work/zoo] [--models a,b]
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
from lowering_coverage import generic_text, load_onnx
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType

MODELS = (
    "box_detector_ts",
    "box_detector_dynamo",
    "nms_detector_ts",
    "nms_detector_dynamo",
)


def cut_after(function: func.FuncOp, op) -> None:
    """The function returns the op's inputs and its last result."""
    values = [*op.operands, op.results[-1]]
    terminator = function.body.block.last_op
    function.body.block.insert_op_before(func.ReturnOp(*values), terminator)
    terminator.detach()
    terminator.erase()
    function.function_type = FunctionType.from_lists(
        function.function_type.inputs.data, [v.type for v in values]
    )
    function.res_attrs = None


def reselect(op, inputs: list[np.ndarray]) -> np.ndarray:
    """The interpreter's selection on `inputs`."""
    from graph_opt.dialects.nn.base import float_value, int_value
    from graph_opt.interpreter.detection import non_max_suppression
    from graph_opt.interpreter.index_ops import top_k

    props = op.properties
    if op.name == "nn.top_k":
        axis = int_value(props, "axis", -1) % inputs[0].ndim
        largest = bool(int_value(props, "largest", 1))
        return top_k(inputs[0], op.k.value.data, axis, largest)[1]
    score = props.get("score_threshold")
    return non_max_suppression(
        *inputs,
        int_value(props, "max_output_boxes_per_class", 0),
        float_value(props, "iou_threshold", 0.0),
        None if score is None else score.value.data,
        bool(int_value(props, "center_point_box", 0)),
    )


def check(path: Path) -> tuple[str, bool, bool]:
    import iree.compiler as iree_compiler
    import iree.runtime as iree_runtime

    from graph_opt import api
    from graph_opt.interpreter import run_function
    from graph_opt.lowering.to_tosa import LowerToTosaPass

    module, feeds = load_onnx(path)
    api.run(module, "refine-shapes,optimize")
    function = next(iter(module.ops))
    names = [a.data["nn.name"].data for a in function.arg_attrs.data]
    inputs = [feeds[n] for n in names]
    selector = next(
        o for o in function.walk() if o.name in ("nn.top_k", "nn.non_max_suppression")
    )
    cut_after(function, selector)
    api.run(module, "prune")
    lowered = module.clone()
    LowerToTosaPass().apply(api.context(), lowered)
    vmfb = iree_compiler.compile_str(
        generic_text(lowered),
        target_backends=["llvm-cpu"],
        input_type="tosa",
        extra_args=["--iree-llvmcpu-target-cpu=generic"],
    )
    runtime = iree_runtime.SystemContext(config=iree_runtime.Config("local-task"))
    runtime.add_vm_module(iree_runtime.VmModule.copy_buffer(runtime.instance, vmfb))
    results = runtime.modules.module[function.sym_name.data](*inputs)
    got = [np.asarray(r.to_host()) for r in results]
    expected = run_function(module, inputs)
    same_inputs = np.array_equal(reselect(selector, got[:-1]), got[-1])
    return selector.name, same_inputs, np.array_equal(expected[-1], got[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--zoo", default="/work/zoo")
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print("| model | op | = interpreter on IREE's inputs | = interpreter on its own |")
    print("|---|---|---|---|")
    for name in args.models.split(","):
        op, same_inputs, own = check(Path(args.zoo) / f"{name}.onnx")
        print(
            f"| {name} | {op} | {'yes' if same_inputs else 'no'} | {'yes' if own else 'no'} |"
        )


if __name__ == "__main__":
    main()
