"""Data in: a source read and counted where it lies (``local``, ``counted_data``), an upload or sample loaded
(``loading``) and profiled (``profiling``), and the session's analysed rows (``analysis``)."""
