"""The tf_state ops in the interpreter: variables and queues live in a
`Session`, keyed by name, and persist across the steps it runs."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.utils.exceptions import InterpretationError

from graph_opt.dialects.nn.dense import to_numpy
from graph_opt.dialects.tf_state import (
    ApplyAdamOp,
    ApplyGradientDescentOp,
    ApplyMomentumOp,
    AssignAddOp,
    AssignOp,
    AssignSubOp,
    DequeueOp,
    EnqueueOp,
    FifoQueueOp,
    GroupOp,
    ReadOp,
    VariableOp,
)


@dataclass(frozen=True)
class Handle:
    """What a variable or queue op evaluates to: the name of its resource."""

    name: str


@dataclass
class Resources:
    """The state of a session: variable values and queue contents by name."""

    variables: dict[str, np.ndarray] = field(default_factory=dict)
    queues: dict[str, deque] = field(default_factory=dict)


@register_impls
class TfStateFunctions(InterpreterFunctions):
    def __init__(self, resources: Resources | None = None):
        self.resources = resources or Resources()

    def value(self, handle: Handle) -> np.ndarray:
        if handle.name not in self.resources.variables:
            raise InterpretationError(f"variable '{handle.name}' is not initialized")
        return self.resources.variables[handle.name]

    def store(self, handle: Handle, value: np.ndarray) -> tuple[np.ndarray]:
        old = self.value(handle) if handle.name in self.resources.variables else None
        dtype = old.dtype if old is not None else value.dtype
        if old is not None and old.shape != np.shape(value):
            raise InterpretationError(
                f"variable '{handle.name}' of shape {list(old.shape)} assigned shape {list(np.shape(value))}"
            )
        self.resources.variables[handle.name] = np.asarray(value, dtype=dtype)
        return (self.resources.variables[handle.name].copy(),)

    @impl(VariableOp)
    def run_variable(self, interpreter: Interpreter, op: VariableOp, args):
        name = op.var_name.data
        initial = op.initial_value
        if name not in self.resources.variables and initial is not None:
            self.resources.variables[name] = np.array(to_numpy(initial))
        return (Handle(name),)

    @impl(ReadOp)
    def run_read(self, interpreter: Interpreter, op: ReadOp, args):
        return (self.value(args[0]).copy(),)

    @impl(AssignOp)
    def run_assign(self, interpreter: Interpreter, op, args):
        return self.store(args[0], args[1])

    @impl(AssignAddOp)
    def run_assign_add(self, interpreter: Interpreter, op, args):
        return self.store(args[0], self.value(args[0]) + args[1])

    @impl(AssignSubOp)
    def run_assign_sub(self, interpreter: Interpreter, op, args):
        return self.store(args[0], self.value(args[0]) - args[1])

    @impl(ApplyGradientDescentOp)
    def run_apply_gradient_descent(self, interpreter: Interpreter, op, args):
        var, alpha, delta = args
        return self.store(var, self.value(var) - alpha * delta)

    @impl(ApplyMomentumOp)
    def run_apply_momentum(self, interpreter: Interpreter, op, args):
        var, accum, lr, grad, momentum = args
        accumulated = self.store(accum, self.value(accum) * momentum + grad)[0]
        if op.use_nesterov is not None:
            step = grad * lr + accumulated * momentum * lr
        else:
            step = accumulated * lr
        return self.store(var, self.value(var) - step)

    @impl(ApplyAdamOp)
    def run_apply_adam(self, interpreter: Interpreter, op, args):
        var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad = args
        rate = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
        m_new = self.store(m, self.value(m) + (grad - self.value(m)) * (1 - beta1))[0]
        v_new = self.store(
            v, self.value(v) + (grad * grad - self.value(v)) * (1 - beta2)
        )[0]
        if op.use_nesterov is not None:
            m_new = m_new * beta1 + grad * (1 - beta1)
        return self.store(
            var, self.value(var) - m_new * rate / (np.sqrt(v_new) + epsilon)
        )

    @impl(FifoQueueOp)
    def run_fifo_queue(self, interpreter: Interpreter, op: FifoQueueOp, args):
        name = op.queue_name.data
        self.resources.queues.setdefault(name, deque())
        return (Handle(name),)

    @impl(EnqueueOp)
    def run_enqueue(self, interpreter: Interpreter, op: EnqueueOp, args):
        queue, *components = args
        elements = zip(*components) if op.many is not None else [tuple(components)]
        self.resources.queues[queue.name].extend(
            tuple(np.array(c) for c in element) for element in elements
        )
        return ()

    @impl(DequeueOp)
    def run_dequeue(self, interpreter: Interpreter, op: DequeueOp, args):
        queue = self.resources.queues[args[0].name]
        count = 1 if len(args) == 1 else int(np.asarray(args[1]).reshape(-1)[0])
        if len(queue) < count:
            raise InterpretationError(
                f"queue '{args[0].name}' holds {len(queue)} elements, {count} dequeued"
                " (TensorFlow would wait)"
            )
        elements = [queue.popleft() for _ in range(count)]
        if len(args) == 1:
            return elements[0]
        return tuple(np.stack(c) for c in zip(*elements))

    @impl(GroupOp)
    def run_group(self, interpreter: Interpreter, op: GroupOp, args):
        return ()


class Session:
    """Runs functions of modules against one set of resources, as a TensorFlow
    session runs fetches: variables keep their values between runs."""

    def __init__(self):
        self.state = TfStateFunctions()

    @property
    def variables(self) -> dict[str, np.ndarray]:
        return self.state.resources.variables

    def run(
        self,
        module: ModuleOp,
        inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray] = (),
        function: str | None = None,
        externals: Mapping[str, Callable] | None = None,
    ) -> list[np.ndarray]:
        from graph_opt.interpreter.runner import run_function

        return run_function(module, inputs, function, self.state, externals)
