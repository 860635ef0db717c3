"""The rooms of the code and the arrows between them, written down once and checked against every import.

A room is a folder (or a few shared modules) holding one concern; an arrow is a room's imports of another room.
The engine imports nothing of the services; the table service stands on the engine, the answer writers and the
call core; the transports stand on the core (and may reach the table service); the host reaches the table
service through its one interface and imports no transport; nothing but the composition root imports the host.
docs/development.md draws the same picture.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from tests.architecture.imports import Import, cycles, function_imports, imports, module_files

ROOMS: dict[str, tuple[str, ...]] = {
    "engine": ("mazziere.engine",),
    "contract": ("mazziere.services.gen",),
    "shared": ("mazziere.services.config", "mazziere.services.errors"),
    "build": ("mazziere.services.codegen",),
    "core": ("mazziere.services.core",),
    "wire": ("mazziere.services.wire",),
    "table": ("mazziere.services.table",),
    "grpc": ("mazziere.services.grpc",),
    "http": ("mazziere.services.http",),
    "host": ("mazziere.services.host",),
    "app": ("mazziere.services.app",),
    "cli": ("mazziere.services.cli",),
}
"""Each room and the modules in it (a name covers the module and everything under it)."""
PACKAGES = frozenset({"mazziere.services"})
"""Packages that only hold rooms (no code of their own)."""

BASE = frozenset({"contract", "shared"})
MAY_IMPORT: dict[str, frozenset[str]] = {
    "engine": frozenset(),
    "contract": frozenset(),
    "build": frozenset(),
    "shared": frozenset({"engine", "contract"}),
    "core": BASE,
    "wire": BASE | {"engine"},
    "table": BASE | {"engine", "wire", "core"},
    "grpc": BASE | {"core", "table"},
    "http": BASE | {"core", "wire", "table"},
    "host": BASE | {"engine", "wire", "core", "table"},
    "app": BASE | {"engine", "wire", "core", "table", "grpc", "http", "host"},
    "cli": BASE | {"engine", "core", "wire", "table", "app"},
}
"""The arrows: what each room may import besides itself. engine <- table <- transports; host -> the table's
interface; app -> everything; no transport imports another, and only the app imports the host."""

OPTIONAL = {
    "matplotlib": "the plot extra, for `mazziere simulate --plot`",
    "opentelemetry.sdk": "the tracing SDK, loaded only when tracing is configured (start-up stays light without)",
    "opentelemetry.exporter": "the OTLP exporter, loaded only when spans are exported",
}
"""Optional dependencies, imported where they are used, inside a function: the only imports allowed there."""

MODULES = module_files()
IMPORTS = list(imports(MODULES))


def room_of(module: str) -> str | None:
    for room, prefixes in ROOMS.items():
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return room
    return None


def test_every_module_is_in_one_room() -> None:
    homeless = [m for m in MODULES if m not in PACKAGES and room_of(m) is None]
    assert not homeless, f"modules in no room (add them to one, or a room to ROOMS): {homeless}"


def test_every_arrow_runs_the_way_the_rooms_allow() -> None:
    against: list[str] = []
    for found in IMPORTS:
        source, target = room_of(found.module), room_of(found.target)
        if source is None or target is None or source == target:
            continue
        if target not in MAY_IMPORT[source]:
            against.append(_line(found, f"{source} -> {target}"))
    assert not against, "imports against the rooms' arrows:\n" + "\n".join(against)


def test_only_the_composition_root_imports_the_host() -> None:
    importers = {room_of(f.module) for f in IMPORTS if room_of(f.target) == "host"} - {"host", None}
    assert importers <= {"app"}


@pytest.mark.parametrize("folder", ["mazziere.engine", "mazziere.services"])
def test_no_import_cycle_counting_type_checking_imports(folder: str) -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for found in IMPORTS:
        if found.module.startswith(folder) and found.target.startswith(folder) and found.target in MODULES:
            graph[found.module].add(found.target)
    assert cycles(graph) == []


def test_no_import_inside_a_function_but_an_optional_dependency() -> None:
    inside = [
        f"{m}:{line} imports {name}"
        for m, line, name in function_imports(MODULES)
        if not any(name == o or name.startswith(o + ".") for o in OPTIONAL)
    ]
    assert not inside, "imports inside functions (move them to the top, or list an optional one):\n" + "\n".join(inside)


def test_the_rooms_name_real_modules() -> None:
    """A room that holds no module is a typo (the map must not drift from the code)."""
    for room, prefixes in ROOMS.items():
        if room == "contract":  # generated: not read here
            continue
        assert any(room_of(m) == room for m in MODULES), f"room {room} ({prefixes}) holds no module"


def _line(found: Import, arrow: str) -> str:
    return f"{found.module}:{found.line} imports {found.target} ({arrow})"
