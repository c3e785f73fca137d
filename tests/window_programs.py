"""Programs with one convolution or pooling op of `linalg_conv.WINDOW_SPECS`,
for the dialect, rule and backend tests: each loop of the op gets an extent,
and the operand shapes follow from the loops, strides and dilations."""
from __future__ import annotations

from dataclasses import dataclass

from gradir.dialects.linalg_conv import CONV, WINDOW_SPECS, WindowSpec

SPECS = {spec.name: spec for spec in WINDOW_SPECS}

DEFAULT_EXTENTS = {
    "n": 2, "g": 2, "c": 2, "ic": 2, "cm": 2, "f": 3, "fg": 2,
    "od": 2, "oh": 3, "ow": 3, "kd": 2, "kh": 2, "kw": 3,
}  # fmt: skip


@dataclass(frozen=True)
class WindowCase:
    spec: WindowSpec
    extents: dict[str, int]
    strides: tuple[int, ...] | None
    dilations: tuple[int, ...] | None
    element: str = "f64"
    extra_input: tuple[int, ...] | None = None
    """Elements added at the end of each spatial input dimension (never read)."""

    @property
    def stride_values(self) -> list[int]:
        return list(self.strides or [1] * len(self.spec.windows))

    @property
    def dilation_values(self) -> list[int]:
        return list(self.dilations or [1] * len(self.spec.windows))

    def shapes(self) -> tuple[list[int], list[int], list[int]]:
        """(input, filter, output) shapes."""
        extents = self.extents
        input_shape, window = [], 0
        for entry in self.spec.input_entries:
            if "+" in entry:
                o, k = entry.split("+")
                size = (extents[o] - 1) * self.stride_values[window] + (extents[k] - 1) * self.dilation_values[window] + 1
                if self.extra_input:
                    size += self.extra_input[window]
                input_shape.append(size)
                window += 1
            else:
                input_shape.append(extents[entry])
        filter_shape = [extents[name] for name in self.spec.filter.split()]
        output_shape = [extents[name] for name in self.spec.output.split()]
        return input_shape, filter_shape, output_shape

    def types(self) -> tuple[str, str, str]:
        return tuple(f"tensor<{'x'.join(map(str, shape))}x{self.element}>" for shape in self.shapes())  # type: ignore[return-value]

    def attributes(self) -> str:
        parts = []
        rank = len(self.spec.windows)
        if self.dilations is not None:
            parts.append(f"dilations = dense<[{', '.join(map(str, self.dilations))}]> : tensor<{rank}xi64>")
        if self.strides is not None:
            parts.append(f"strides = dense<[{', '.join(map(str, self.strides))}]> : tensor<{rank}xi64>")
        return f" {{{', '.join(parts)}}}" if parts else ""

    def op_text(self, x: str = "%x", w: str = "%w", init: str = "%init", result: str = "%r") -> str:
        tx, tw, to = self.types()
        return (f"{result} = linalg.{self.spec.name}{self.attributes()} ins({x}, {w} : {tx}, {tw}) "
                f"outs({init} : {to}) -> {to}")

    def function(self, name: str = "f") -> str:
        """`@f(x, w, init) -> op(x, w, init)`."""
        tx, tw, to = self.types()
        return (f"func.func @{name}(%x: {tx}, %w: {tw}, %init: {to}) -> {to} {{\n"
                f"  {self.op_text()}\n  return %r : {to}\n}}\n")


def case(name: str, strides=None, dilations=None, element="f64", extra_input=None, **extents) -> WindowCase:
    spec = SPECS[name]
    chosen = {loop: extents.get(loop, DEFAULT_EXTENTS[loop]) for loop in spec.loop_names}
    if not spec.strided:
        strides = dilations = None
    return WindowCase(spec, chosen, strides, dilations, element, extra_input)


def strided_case(name: str, element: str = "f64") -> WindowCase:
    """Strides and dilations that differ per dimension (2, 1, 3 / 1, 2, 1)."""
    rank = len(SPECS[name].windows)
    return case(name, strides=(2, 1, 3)[:rank], dilations=(1, 2, 1)[:rank], element=element)


def is_conv(spec: WindowSpec) -> bool:
    return spec.kind == CONV
