"""The names the test suite reads as ``data.<name>``: the data modules' public names in one namespace.

Loading is ``ui.loading``, the column profile ``ui.profiling``, the analysed rows ``ui.analysis``, the
memoized computations ``ui.computations``; the app's modules import those, never this one
(``tests/ui/test_ui_imports.py`` checks). Patch a name where it is defined (``monkeypatch.setattr(loading,
...)``), not here. This namespace exists only because the tests' bodies, being rewritten elsewhere, still say
``data.column_profile``; delete it once they import the modules above.
"""

from .analysis import *  # noqa: F403
from .computations import *  # noqa: F403
from .loading import *  # noqa: F403
from .profiling import *  # noqa: F403
