"""YAML text -> nodes with their line numbers, read by libyaml (the C loader) when it is there.

config.yaml and the phrase books are read as nodes, so that every error can name its line. The
C loader composes them about fourteen times faster than PyYAML's pure-Python one; a text it
refuses is read again by the pure-Python loader, whose error (and line) is the one shown, so an
error reads the same on every machine, with or without libyaml.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

_FAST: Any = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader
_RESOLVER = Resolver()
_CONSTRUCTOR = SafeConstructor()


def compose(text: str) -> yaml.Node | None:
    """The text's one document as nodes (None when it is empty).

    Raises what PyYAML's ``SafeLoader`` raises for a text that is not valid YAML
    (``yaml.YAMLError`` with its mark, ``RecursionError`` for absurd nesting).
    """
    try:
        node: yaml.Node | None = yaml.compose(text, Loader=_FAST)
    except (yaml.YAMLError, RecursionError):
        node = yaml.compose(text, Loader=yaml.SafeLoader)  # the same refusal, as PyYAML words it
    return node


def is_plain(node: yaml.ScalarNode) -> bool:
    """True for a scalar written without quotes or a block indicator (C: '', Python: None)."""
    return not node.style


def plain_value(text: str) -> Any:
    """What YAML reads a bare scalar ``text`` as: ``10`` a number, ``true`` a boolean, ``~`` None.

    Resolves the text's implicit tag and constructs it; no document is parsed. Raises
    ``yaml.YAMLError`` or ``ValueError`` for a text YAML cannot construct (``2024-13-45``).
    """
    tag = _RESOLVER.resolve(yaml.ScalarNode, text, (True, False))
    constructor = SafeConstructor.yaml_constructors.get(tag, SafeConstructor.construct_undefined)
    return constructor(_CONSTRUCTOR, yaml.ScalarNode(tag, text))
