"""Rewriting machinery that passes, the pattern language, memory planning and
the importers share: the op-dispatch worklist (`op_dispatch`), erasing and
replacing ops (`erasure`), forwarding values through ops (`value_forwarding`),
what may be removed or moved (`purity`) and keeping TensorFlow placement and
control edges across rewrites (`placement`). It knows the IR, never a pass."""
