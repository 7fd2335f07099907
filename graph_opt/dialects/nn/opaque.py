"""nn.opaque: an operator of a source framework that the dialect does not model."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    BytesAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.irdl import (
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    var_operand_def,
    var_result_def,
)

from graph_opt.dialects.nn.base import GENERIC_FORMAT, NNOperation


@irdl_op_definition
class OpaqueOp(NNOperation):
    """A framework operator kept as is: its type, domain and attributes.

    Passes treat it as a black box with unknown side effects. Attributes that
    have no MLIR form (subgraphs, sparse tensors) stay in `serialized_attrs`,
    a serialized node of the source framework holding just those attributes.
    `absent_inputs` lists optional input positions left empty. The last
    `implicit_inputs` operands are outer-scope values that subgraphs use by
    name (in order of first use), kept as operands so they stay alive.
    """

    name = "nn.opaque"
    inputs = var_operand_def()
    outputs = var_result_def()
    op_type = prop_def(StringAttr)
    domain = opt_prop_def(StringAttr)
    attrs = opt_prop_def(DictionaryAttr)
    serialized_attrs = opt_prop_def(BytesAttr)
    absent_inputs = opt_prop_def(DenseArrayBase)
    implicit_inputs = opt_prop_def(IntegerAttr)
    assembly_format = GENERIC_FORMAT
