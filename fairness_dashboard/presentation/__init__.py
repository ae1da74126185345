"""How things are said and shown: the interface's words (``labels``), Markdown escaping (``escape``), number formats
(``formats``), captions (``captions``), rows of tiles (``tiles``), the metric definitions (``definitions``) and the
intervals' measured coverage (``coverage``)."""
