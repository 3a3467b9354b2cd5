"""Package discovery for the package-dir mapping in pyproject.toml (the rest of the metadata lives there).

Every folder with an ``__init__.py`` under a mapped directory is a package, so a new game folder
(``envs/<game>/``) is installed without editing a list.
"""

from setuptools import find_packages, setup

PACKAGE_DIR = {"meeplezoo": "meeplezoo", "meeplezoo.envs": "envs", "meeplezoo.agents": "agents",
               "meeplezoo.training": "training"}

packages = []
for name, folder in PACKAGE_DIR.items():
    packages += [name, *(f"{name}.{sub}" for sub in find_packages(folder))]

setup(package_dir=PACKAGE_DIR, packages=packages)
