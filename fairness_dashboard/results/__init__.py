"""What the pages show, memoized per session: the fairness_core calls of every page (``computations``) and each
page's findings and verdicts (``summaries``)."""
