"""SGF text as Blokus SGF files use it: the main line of the first game tree, and escaping.

Shared by the Trigon and the Blokus Classic/Duo readers and writers (Pentobi's ``.blksgf``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.core.errors import EngineError


class SgfSyntaxError(EngineError, ValueError):
    """The text is not well-formed SGF."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


@dataclass
class SgfNode:
    """One node: its properties (identifier → values) and the line it starts on."""

    line: int
    props: dict[str, list[str]] = field(default_factory=dict)


def parse_main_line(text: str) -> list[SgfNode]:
    """The nodes of the first game tree's main line (first variation at every branch)."""
    parser = _Parser(text)
    return parser.game_tree_main_line()


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def line(self) -> int:
        return self.text.count("\n", 0, self.i) + 1

    def skip_ws(self) -> None:
        while self.i < len(self.text) and self.text[self.i].isspace():
            self.i += 1

    def expect(self, ch: str) -> None:
        self.skip_ws()
        if self.i >= len(self.text) or self.text[self.i] != ch:
            found = "the end of the text" if self.i >= len(self.text) else repr(self.text[self.i])
            raise SgfSyntaxError(self.line(), f"expected {ch!r} but found {found}")
        self.i += 1

    def peek(self) -> str:
        self.skip_ws()
        return self.text[self.i] if self.i < len(self.text) else ""

    def game_tree_main_line(self) -> list[SgfNode]:
        self.expect("(")
        nodes: list[SgfNode] = []
        while self.peek() == ";":
            nodes.append(self.node())
        first = True
        while self.peek() == "(":
            if first:
                nodes.extend(self.game_tree_main_line())
                first = False
            else:
                self.game_tree_main_line()  # a side variation: read past it
        self.expect(")")
        return nodes

    def node(self) -> SgfNode:
        self.expect(";")
        node = SgfNode(line=self.line())
        while True:
            self.skip_ws()
            start = self.i
            while self.i < len(self.text) and self.text[self.i].isalnum():
                self.i += 1
            ident = self.text[start:self.i]
            if not ident:
                return node
            values = []
            while self.peek() == "[":
                values.append(self.value())
            if not values:
                raise SgfSyntaxError(self.line(), f"property {ident} has no [value]")
            node.props.setdefault(ident.upper(), []).extend(values)

    def value(self) -> str:
        self.expect("[")
        out: list[str] = []
        while True:
            if self.i >= len(self.text):
                raise SgfSyntaxError(self.line(), "a [value] is not closed by ]")
            ch = self.text[self.i]
            self.i += 1
            if ch == "]":
                return "".join(out)
            if ch == "\\" and self.i < len(self.text):
                nxt = self.text[self.i]
                self.i += 1
                if nxt != "\n":  # escaped line break = soft break
                    out.append(nxt)
            else:
                out.append(ch)


def escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def root_game_name(text: str) -> str:
    """The ``GM`` value of the first node of the first game tree ('' if there is none)."""
    nodes = parse_main_line(text)
    return (nodes[0].props.get("GM") or [""])[0].strip() if nodes else ""
