"""Compiling lowered nn graphs with IREE for the CPU and running them."""

from __future__ import annotations

import io

import iree.compiler as iree_compiler
import iree.runtime as iree_runtime
import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from graph_opt import api
from graph_opt.formats.onnx.importer import import_model
from graph_opt.lowering.to_tosa import LowerToTosaPass
from graph_opt.testing import model_zoo

CPU_FLAGS = ["--iree-llvmcpu-target-cpu=generic"]
UNET_INPUT_SHAPE = (1, 3, 16, 16)


def int8_unet(
    samples_dir, rng: np.random.Generator, per_channel: bool, convert: str
) -> ModuleOp:
    """model_zoo.unet through fold-bn, calibrate (8 random samples), quantize
    and `convert` (a convert-to-int spelling)."""
    return int8_cnn(
        model_zoo.unet(), UNET_INPUT_SHAPE, samples_dir, rng, per_channel, convert
    )


def int8_cnn(
    model, input_shape, samples_dir, rng: np.random.Generator, per_channel, convert
) -> ModuleOp:
    """An ONNX CNN (one input, `input`) through fold-bn, calibrate (8 random
    samples), quantize and `convert` (a convert-to-int spelling)."""
    module = import_model(model)
    samples = samples_dir / "samples.npz"
    shape = (8, *input_shape)
    np.savez(samples, input=rng.standard_normal(shape).astype(np.float32))
    quantize = f"quantize{{per-channel={str(per_channel).lower()}}}"
    pipeline = f'fold-bn,calibrate{{inputs="{samples}"}},{quantize},{convert}'
    return api.run(module, pipeline)


def generic_text(module: ModuleOp) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    return stream.getvalue()


class CompiledGraphs:
    """nn functions lowered into one module, compiled once for the CPU (with
    `resources=N`, dense elements of at least N bytes are dense_resources in
    the text, as `--weights-as-resources N` prints them)."""

    def __init__(self, module: ModuleOp, resources: int | None = None):
        self.module = module
        lowered = module.clone()
        LowerToTosaPass().apply(api.context(), lowered)
        self.tosa_text = (
            generic_text(lowered)
            if resources is None
            else api.to_mlir(lowered, generic=True, weights_as_resources=resources)
        )
        vmfb = iree_compiler.compile_str(
            self.tosa_text,
            target_backends=["llvm-cpu"],
            input_type="tosa",
            extra_args=CPU_FLAGS,
        )
        config = iree_runtime.Config("local-task")
        self.runtime = iree_runtime.SystemContext(config=config)
        self.runtime.add_vm_module(
            iree_runtime.VmModule.copy_buffer(self.runtime.instance, vmfb)
        )

    def run(self, name: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
        results = self.runtime.modules.module[name](*inputs)
        if not isinstance(results, tuple | list):
            results = [results]
        return [np.asarray(r.to_host()) for r in results]

    def inputs(self, name: str, rng: np.random.Generator) -> list[np.ndarray]:
        function = next(
            f
            for f in self.module.ops
            if f.sym_name.data == name  # type: ignore[attr-defined]
        )
        arrays = []
        for t in function.function_type.inputs.data:  # type: ignore[attr-defined]
            shape = t.get_shape()
            element = str(t.element_type)
            if element == "i8":
                arrays.append(rng.integers(-128, 128, shape).astype(np.int8))
            elif element in ("i32", "i64"):  # indices: valid for dims of 2 or more
                arrays.append(rng.integers(-2, 2, shape).astype(f"int{element[1:]}"))
            else:
                arrays.append(rng.standard_normal(shape).astype(np.float32))
        return arrays
