"""The probe generators, one module per family of kinds; importing this package registers
every generator found in it (`ragjudge.probing._registry.GENERATORS`)."""

from __future__ import annotations

import importlib
import pkgutil

__all__: list[str] = []

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if not _module.startswith("_"):
        importlib.import_module(f"{__name__}.{_module}")
