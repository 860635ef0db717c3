"""Installs the folders engine/ and services/ as the packages mazziere.engine and mazziere.services.

The folders keep their short names in the repository; installed, they live under the ``mazziere`` namespace, so
nothing as generic as ``engine`` or ``services`` lands in site-packages. Everything else is in pyproject.toml.
"""

from setuptools import find_namespace_packages, setup

ROOTS = ("engine", "services")
packages = find_namespace_packages(
    include=[f"{root}{tail}" for root in ROOTS for tail in ("", ".*")], exclude=["*.__pycache__"]
)
setup(
    packages=[f"mazziere.{name}" for name in packages],
    package_dir={f"mazziere.{root}": root for root in ROOTS},
)
