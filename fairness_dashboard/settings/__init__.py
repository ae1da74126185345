"""The settings of a review: the widgets that set them and keep them across pages (``controls``), the review's
configuration (``review_config``) shared as a link (``review_url``), restored from a file (``review_restore``) and
exported (``review_export``), and the frame every page draws first (``page_frame``, with ``context_line``)."""
