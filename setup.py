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

# package data: the pretrained networks (meeplezoo.agents.pretrained), the replay viewer's page (its HTML, style
# sheet and script, filled by meeplezoo.envs.core.replay), the web app's front end (meeplezoo serve: plain HTML,
# JS and CSS, no build step) and the reference ladders' ratings
PACKAGE_DATA = {"meeplezoo.agents.pretrained": ["*.zip"],
                "meeplezoo.envs.core": ["replay_viewer.html", "replay_viewer.css", "replay_viewer.js"],
                "meeplezoo.serve": ["static/*"], "meeplezoo.training": ["ladders/*.json"]}

setup(package_dir=PACKAGE_DIR, packages=packages, package_data=PACKAGE_DATA, include_package_data=True)
