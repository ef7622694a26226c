"""The build step that makes the wheel one package: `backprop_studio`, with `core` and `app` inside it.

In a checkout the code lives in `core/` and `app/` beside `resources/` (the design card's layout),
and imports itself by those names: `from core.engine import Value`. Installed under those names, a
learner's own `core.py` or `app.py` next to their notebook would be imported instead of ours (the
current folder comes first on sys.path). So the wheel installs ONE top-level package:

    backprop_studio/          <- resources/  (the package; lessons, examples, engines, icons as data)
    backprop_studio/core/     <- core/
    backprop_studio/app/      <- app/

(pyproject.toml's [tool.setuptools.package-dir]), and as the build copies each module it rewrites
the studio's own imports to the installed names: `from core.engine import Value` becomes
`from backprop_studio.core.engine import Value`. Only statements that begin a line are rewritten,
the same text a reader sees; a plain `import core...` is refused (its name would change), so the
rewrite cannot silently miss one. An editable install (`pip install -e .`) copies nothing: there
the checkout's folders are used as they are (resources/__init__.py puts the checkout on sys.path).
Everything else about the build is pyproject.toml's.
"""

import os
import re

from setuptools import setup
from setuptools.command.build_py import build_py

OURS = ("core", "app")
FROM = re.compile(r"^(\s*)from\s+(core|app)(?=[\s.])", re.M)
PLAIN = re.compile(r"^\s*import\s+(core|app)\b", re.M)


def installed_imports(text, name):
    """The module's text with `from core…`/`from app…` imports made `from backprop_studio.core…`."""
    plain = PLAIN.search(text)
    if plain:
        line = text.count("\n", 0, plain.start()) + 1
        raise SystemExit(f"{name}:{line}: write `from {plain.group(1)}... import ...`: a plain import cannot be moved")
    return FROM.sub(r"\1from backprop_studio.\2", text)


class BuildPy(build_py):
    """build_py, then the installed names in every module copied under backprop_studio/."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        package = os.path.join(self.build_lib, "backprop_studio")
        for folder, _dirs, files in os.walk(package):
            for name in files:
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    with open(path, encoding="utf-8") as f:
                        text = f.read()
                    moved = installed_imports(text, os.path.relpath(path, self.build_lib))
                    if moved != text:
                        with open(path, "w", encoding="utf-8") as f:
                            f.write(moved)


if __name__ == "__main__":  # as setuptools runs it; tests/test_packaging.py imports the rewrite alone
    setup(cmdclass={"build_py": BuildPy})
