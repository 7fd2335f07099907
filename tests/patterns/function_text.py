"""MLIR text of a one-result function over arguments of one tensor type."""


def function_text(body: str, args: str, value_type: str, name: str = "main") -> str:
    """`func.func @name(%a: T, ...) -> T` around `body` (which returns)."""
    params = ", ".join(f"{a}: {value_type}" for a in args.split(", "))
    return f"func.func @{name}({params}) -> {value_type} {{\n{body}\n}}"
