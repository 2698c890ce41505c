"""The house's layers: a module never imports one of a higher layer, and the rules import
nothing of voicehost outside ``game/``. Read from the source, so a new import that breaks the
layering fails here before it tangles the house."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "voicehost"

#: Lower numbers are lower layers. Packages of one layer do not import each other either:
#: what joins them is wiring, in cli/.
LAYERS = {
    "errors": 0,
    "clock": 0,
    "notices": 0,
    "yamltext": 0,  # a leaf (PyYAML only): config, the books and the rule sets read through it
    "game": 1,
    "ports": 2,
    "clips": 2,
    "hearing": 2,
    "rulesets": 2,
    "config": 3,
    "phrases": 3,
    "host": 4,
    "voice_out": 5,
    "voice_in": 5,
    "keypad": 5,
    "console": 5,
    "club": 5,
    "web": 5,
    "testing": 6,
    "cli": 7,
    "__main__": 8,
}


def unit_of(module: str) -> str:
    """The layer unit of a dotted module name: ``voicehost.host.loop`` -> ``host``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, module) for each voicehost module ``path`` imports, at any depth in the file."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "voicehost":
                found.extend((node.lineno, f"voicehost.{alias.name}") for alias in node.names)
            elif node.module.startswith("voicehost."):
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found.extend(
                (node.lineno, alias.name)
                for alias in node.names
                if alias.name.startswith("voicehost.")
            )
    return found


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def name_of(path: Path) -> str:
    """The dotted module name of a file of the package."""
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def test_every_module_belongs_to_a_layer() -> None:
    units = {
        unit_of(".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts)) for p in modules()
    }
    assert units - {"__init__"} <= set(LAYERS), units - set(LAYERS)


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_a_higher_layer(path: Path) -> None:
    me = unit_of(name_of(path))
    if me == "__init__":
        return
    wrong = []
    for line, module in imports_of(path):
        other = unit_of(module)
        if other in (me, "__init__", "__version__"):
            continue
        if LAYERS[other] >= LAYERS[me]:
            wrong.append(f"line {line}: {me} (layer {LAYERS[me]}) imports {module} "
                         f"(layer {LAYERS[other]})")  # fmt: skip
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("path", sorted((PACKAGE / "game").rglob("*.py")), ids=lambda p: p.name)
def test_the_rules_import_only_the_standard_library_and_themselves(path: Path) -> None:
    import sys

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            top = name.split(".")[0]
            allowed = top in sys.stdlib_module_names or name.startswith("voicehost.game")
            assert allowed, f"{path.name} line {node.lineno} imports {name}"
