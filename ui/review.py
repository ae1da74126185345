"""The names the test suite reads as ``review.<name>``: the review modules' public names in one namespace.

Session and configuration are ``ui.review_config``, the URL ``ui.review_url``, restoring a saved review
``ui.review_restore``, the exports ``ui.review_export``; the app's modules import those, never this one
(``tests/ui/test_ui_imports.py`` checks). This namespace exists only because the tests' bodies, being
rewritten elsewhere, still say ``ui_review.decode``; delete it once they import the modules above.
"""

from .review_config import *  # noqa: F403
from .review_export import *  # noqa: F403
from .review_restore import *  # noqa: F403
from .review_url import *  # noqa: F403
