"""Reading the YAML file: a safe loader that refuses duplicate keys, and
every file or syntax problem as a ``ConfigError``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from bot.config.errors import HIDDEN, ConfigError, ConfigFileMissing, looks_secret

#: libyaml's parser where PyYAML was built with it (about ten times faster on
#: a configuration file), else the pure-Python one; both construct safely.
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_SafeLoader):  # type: ignore[valid-type,misc]
    """A safe loader that refuses duplicate keys (PyYAML keeps the last one
    silently, which hides typos)."""


def _construct_mapping(
    loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False
) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    result: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in result:
            mark = key_node.start_mark
            raise ConfigError(
                str(key),
                HIDDEN if looks_secret(str(key)) else loader.construct_object(value_node),
                "each key once per section",
                reason=f"duplicate key on line {mark.line + 1}",
            )
        result[key] = loader.construct_object(value_node, deep=deep)
    return result


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def read_yaml(path: Path) -> Any:
    """The parsed content of the YAML file at ``path`` (None when empty).

    Raises ``ConfigFileMissing`` for a missing file, ``ConfigError`` for an
    unreadable one, a duplicate key and YAML syntax errors.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigFileMissing(path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            "(file)", str(path), "a readable UTF-8 YAML file", reason=str(exc)
        ) from None
    try:
        data = yaml.load(text, Loader=_StrictLoader)  # a SafeLoader subclass
    except ConfigError as exc:
        exc.source = path
        raise
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "unknown place"
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(
            "(file)", str(path), "valid YAML", reason=f"YAML syntax error at {where}: {problem}",
            source=path,
        ) from None
    return data
