"""Packaging beyond what ``pyproject.toml`` can say: ``resources/`` (examples, icons,
styles) travels in the wheel as the package data ``gradstudio.resources``, which
``gradstudio.locations`` finds when there is no checkout around the code."""

from setuptools import find_packages, setup

RESOURCES = ["examples/*.gstudio", "icons/*.svg", "styles/*.qss", "help/*.html"]

setup(
    packages=[
        *find_packages(include=["engine*", "gradstudio*", "ui*"]),
        "gradstudio.resources",
    ],
    package_dir={"gradstudio.resources": "resources"},
    package_data={
        "gradstudio.resources": RESOURCES,
        "gradstudio.interchange": ["schema/*.json"],
        "engine": ["*.pxd", "*.h"],
    },
)
