"""A Griffe extension for the API reference (mkdocs.yml): the docstrings' Sphinx cross-reference roles,
such as :func:`rate_disparity` or :class:`~fairness_core.Rule`, shown as the code they name,
``rate_disparity`` or ``Rule``, rather than as the role's markup (mkdocstrings reads Markdown, not reST roles)."""

from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|obj|exc|const):`~?([^`]+)`")


class SphinxRoles(griffe.Extension):
    """Rewrite each object's docstring as it is loaded: ``:role:`name``` becomes ``` ``name`` ```."""

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        """Rewrite the roles in `obj`'s docstring, if it has one."""
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(r"``\1``", obj.docstring.value)
