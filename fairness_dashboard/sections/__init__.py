"""Sections several pages draw: model comparison (``compare``), the comparison table (``comparison_table``), the
decision threshold (``threshold``) and its suggestions (``suggest``), the trade-off (``tradeoff``) and the release
gate (``gate``)."""
