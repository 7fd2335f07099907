"""graph-opt's xDSL printer: xDSL 0.74's `Printer` with the internal state
graph-opt's fast printer reads, behind public names (`CompatPrinter`)."""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.printer import Printer


class CompatPrinter(Printer):
    """xDSL's `Printer`, exposing the state a printer writing some ops itself
    shares with xDSL's (SSA names, resources, line callbacks)."""

    @property
    def has_next_line_callback(self) -> bool:
        """Whether something is to be printed after the next line ends (xDSL's
        own op printing must then write the line)."""
        return bool(self._next_line_callback)

    def merge_resources_of(self, other: Printer) -> None:
        """Print, in this printer's resource section, the resources `other` met."""
        for dialect, handles in other._dialect_resources.items():
            self._dialect_resources.setdefault(dialect, set()).update(handles)

    def name_of(self, value: SSAValue) -> str:
        """`value`'s name, given as `print_ssa_value` gives it (without the `%`)."""
        name = self._ssa_values.get(value)
        if name is not None:
            return name
        hint = value.name_hint
        if hint:
            names = self.ssa_names
            index = names.get(hint, 0)
            name = f"{hint}_{index}" if index else hint
            names[hint] = index + 1
        else:
            name = self._get_new_valid_name_id()
        self._ssa_values[value] = name
        return name
