"""The Python client's tests (``python3 -m pytest`` or ``python3 -m unittest discover`` in
clients/python). The package's source (``src``) and this folder (the helpers the test modules and
scripts import by plain name) are put on the import path here, for unittest; pytest reads the same
from ``pythonpath`` in pyproject.toml."""

import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
for _path in (os.path.join(os.path.dirname(_here), "src"), _here):
    if _path not in sys.path:
        sys.path.insert(0, _path)
