import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.dialects.scf import Scf
from xdsl.dialects.tensor import Tensor
from xdsl.ir import SSAValue
from xdsl.parser import Parser

from graph_opt.dialects.nn import NN


def _context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, NN, Scf, Tensor):
        ctx.load_dialect(dialect)
    return ctx


def _parse(text: str) -> ModuleOp:
    module = Parser(_context(), text).parse_module()
    module.verify()
    return module


def _value(module: ModuleOp, name: str) -> SSAValue:
    """The value named `%name` in the module's text."""
    for op in module.walk():
        for result in op.results:
            if result.name_hint == name:
                return result
    raise KeyError(name)


@pytest.fixture
def parse():
    return _parse


@pytest.fixture
def value():
    return _value


@pytest.fixture
def context():
    return _context()
