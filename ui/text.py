"""The names the test suite reads as ``text.<name>``: the text modules' public names in one namespace.

Labels are ``ui.labels``, Markdown escaping ``ui.escape``, number formats ``ui.formats``, captions
``ui.captions``; the app's modules import those, never this one (``tests/ui/test_ui_imports.py`` checks).
This namespace exists only because the tests' bodies, being rewritten elsewhere, still say ``text.num``
or ``text.md``; delete it once they import the modules above.
"""

from .captions import *  # noqa: F403
from .escape import *  # noqa: F403
from .escape import ZWJ, md  # noqa: F401
from .formats import *  # noqa: F403
from .labels import *  # noqa: F403
