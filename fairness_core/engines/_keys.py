"""The keys of an engine's count rows: each row's protected key and membership pattern, and the count tables
(atoms) summed from rows grouped by key and cell, in a sparse layout (:class:`_Keys`, :func:`_atoms_of`)."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
import pandas as pd

from .._counts.scored_data import MAX_SUBGROUPS, ColumnMapping
from .._stats.bootstrap import Atoms
from .._subgroups.patterns import _packed_rows
from .._subgroups.subgroups import Subgroups
from ._sql import membership_bits


def _atoms_of(keys: "_Keys", key: np.ndarray, frame, cell_of_row: np.ndarray, n_cells: int,
              with_missing: Sequence[bool] = ()) -> tuple:
    """(Atoms, sums) of the rows of a query grouped by protected key (`key`: each row's, among `keys`), identity
    columns' membership words ``__fc_w{i}`` (``_sql.membership_bits`` of `with_missing`) and a cell
    (`cell_of_row`, of `n_cells`);
    ``sums(column)`` adds up another column of `frame` (a DataFrame or a dict of arrays) per (pattern, cell)."""
    pattern, masks = _pattern_of(keys, key, frame, with_missing)
    n_patterns = len(masks[0])
    index = pattern * n_cells + np.asarray(cell_of_row, dtype=np.int64)

    def summed(column: str) -> np.ndarray:
        return np.bincount(index, weights=np.asarray(frame[column], dtype=np.float64),
                           minlength=n_patterns * n_cells).reshape(n_patterns, n_cells)

    return Atoms(summed("__fc_n"), *masks), summed


def _pattern_of(keys: "_Keys", key: np.ndarray, frame, with_missing: Sequence[bool] = ()) -> tuple:
    """(each row's pattern, (member, background) masks of the patterns) of the rows of a query grouped by protected
    key and membership words, as :func:`_atoms_of` reads them.

    The memberships are decoded per distinct (key, words), not per row: a pattern query of many identity columns
    returns up to millions of rows but far fewer distinct memberships."""
    key = np.asarray(key, dtype=np.int64)
    if not keys.m.indicators:   # the pattern is the key's: found over the keys present, not over every row
        used = np.flatnonzero(np.bincount(key, minlength=len(keys.frame)))
        pattern_of, masks = _patterns(keys, *_memberships(keys, used))
        lookup = np.zeros(len(keys.frame), dtype=np.int64)
        lookup[used] = pattern_of
        pattern = lookup[key]
    else:
        bits = membership_bits(len(keys.m.indicators), with_missing)
        n_words = 1 + max(where[0] for column in bits for where in column if where is not None)
        words = [np.asarray(frame[f"__fc_w{i}"], dtype=np.int64) for i in range(n_words)]
        code = key   # each row's (key, words) numbered by hashing (pd.factorize), a word at a time: no sort of rows
        for word in words:
            number, distinct = pd.factorize(word)
            code = pd.factorize(code * len(distinct) + number)[0]
        n_distinct = int(code.max()) + 1 if len(code) else 0
        first = np.zeros(n_distinct, dtype=np.int64)
        first[code] = np.arange(len(code))   # a row of each distinct (key, words): any one, they are all alike
        pattern_of, masks = _patterns(keys, *_memberships(keys, key[first], np.column_stack(words)[first], bits))
        pattern = pattern_of[code]
    return pattern, masks


def _memberships(keys: "_Keys", key: np.ndarray, words: Optional[np.ndarray] = None,
                 bits: Sequence = ()) -> tuple[np.ndarray, np.ndarray]:
    """(member, background) of rows of keys `key` (shape (n,)) and identity columns' membership words `words`
    (shape (n, n_words); None without identity columns) whose bits `bits` are (``_sql.membership_bits``): bool
    arrays of shape (n, subgroups)."""
    n = len(key)
    member, background = [np.zeros((n, 0), dtype=bool)], [np.zeros((n, 0), dtype=bool)]
    if keys.prot is not None:
        member.append(np.asarray(keys.prot.membership, dtype=bool)[key])
        background.append(np.asarray(keys.prot.background, dtype=bool)[key])

    def bit(where):
        return ((words[:, where[0]] >> where[1]) & 1).astype(bool)

    for inside_at, missing_at in bits:
        inside = bit(inside_at)
        missing = bit(missing_at) if missing_at is not None else False
        member.append(inside[:, None])
        background.append((~inside & ~missing)[:, None])
    return np.hstack(member), np.hstack(background)


def _patterns(keys: "_Keys", member: np.ndarray, background: np.ndarray) -> tuple[np.ndarray, tuple]:
    """(each row's pattern, (member, background) masks of the patterns), numbered as ``Subgroups.patterns``."""
    if keys.disjoint:   # a pattern per subgroup, in subgroup order
        present, pattern = np.unique(np.argmax(member, axis=1), return_inverse=True)
        eye = np.eye(len(keys.names), dtype=bool)[present]
        return pattern.reshape(-1), (eye, ~eye)
    # Each row's bits packed big-endian into 64-bit words (``Subgroups.patterns``' packing): the words' order is
    # the rows' lexicographic order, and sorting a word or two per row is many times faster than rows of bools.
    words = _packed_rows([member, background]).view(">u8")
    if words.shape[1] == 1:
        _, first, pattern = np.unique(words[:, 0], return_index=True, return_inverse=True)   # in increasing order
    else:
        _, first, pattern = np.unique(words, axis=0, return_index=True, return_inverse=True)
    return pattern.reshape(-1), (member[first], background[first])


class _Keys:
    """The distinct protected-attribute values of the kept rows and their subgroups (the in-memory rules).

    The subgroups are built by ``Subgroups.from_attributes`` on one row per distinct combination of
    values, so names, order and missing values follow the in-memory library exactly; identity columns
    follow as subgroups of their own. ``key`` is the key number of each row of the `frame` they were
    built from (what :meth:`index` finds for it).
    """

    def __init__(self, frame: pd.DataFrame, m: ColumnMapping, bins: Optional[dict] = None):
        self.m = m
        self.prot = None
        self.frame = pd.DataFrame(index=[0])
        self.key = np.zeros(len(frame), dtype=np.int64)
        if m.protected:   # keys numbered in order of first appearance, as self.frame lists them
            self.key = frame.groupby(list(m.protected), dropna=False, sort=False).ngroup().to_numpy(dtype=np.int64)
            first = np.unique(self.key, return_index=True)[1]
            self.frame = frame.loc[first, list(m.protected)].reset_index(drop=True)
            self.prot = Subgroups.from_attributes(self.frame, list(m.protected), intersect=m.intersect, bin_edges=bins,
                                                  min_size=m.min_size, n_bins=m.n_bins,
                                                  max_subgroups=MAX_SUBGROUPS - len(m.indicators))
        self.names = (list(self.prot.names) if self.prot is not None else []) + list(m.indicators)
        if len(self.names) > MAX_SUBGROUPS:
            from .._subgroups.subgroups import TOO_MANY_MESSAGE
            raise ValueError(TOO_MANY_MESSAGE.format(n=len(self.names), max=MAX_SUBGROUPS))
        self.disjoint = self.prot is not None and self.prot.codes is not None and not m.indicators

    def index(self, frame: pd.DataFrame) -> np.ndarray:
        """The key number of each row of a query result (its protected values among ``self.frame``'s)."""
        if self.prot is None:
            return np.zeros(len(frame), dtype=np.int64)
        cols = list(self.m.protected)
        numbered = self.frame.assign(__fc_key=np.arange(len(self.frame)))
        merged = frame[cols].merge(numbered, on=cols, how="left", sort=False)
        return merged["__fc_key"].to_numpy(dtype=np.int64)

    def tables(self, frame: pd.DataFrame, cell: np.ndarray, n_cells: int, weights: dict,
               key: Optional[np.ndarray] = None, *, as_sparse: bool = False,
               dtype=np.float64) -> tuple[dict, dict, dict]:
        """Per quantity q of `weights`: member (k, n_cells), background (k, n_cells) and overall (n_cells,) sums.

        Protected subgroups: the sums per key times the membership (background) masks of the keys.
        Identity column j: its member sums ``__fc_m{q}{j}``; its background is every row minus the
        members minus the rows where it is missing (``__fc_x{q}{j}``). `key`: the rows' key numbers
        when already found (:meth:`index`). `as_sparse`: member and background as CSR matrices of `dtype`
        (int64 for counts of rows), filled row by row (:func:`_csr_of_rows`; the AUC counts' exact levels: a
        dense table of every subgroup x level took several times the rows' memory).
        """
        from scipy import sparse

        key = self.index(frame) if key is None else key
        member, background, overall = {}, {}, {}
        for q, w in weights.items():
            by_key = sparse.csr_matrix((w, (key, cell)), shape=(len(self.frame), n_cells))
            total = np.asarray(by_key.sum(axis=0)).reshape(-1)
            rows_m, rows_b = [], []   # each subgroup's row, or (sparse) a function computing it
            if self.prot is not None:
                for masks, rows in ((self.prot.membership, rows_m), (self.prot.background, rows_b)):
                    summed = sparse.csr_matrix(masks.T.astype(np.float64)) @ by_key
                    rows += ([lambda i=i, summed=summed: summed.getrow(i).toarray()[0] for i in range(summed.shape[0])]
                             if as_sparse else [summed.toarray()])
            for j in range(len(self.m.indicators)):
                def identity_rows(j=j):   # (members, background) of identity column j
                    mem = np.bincount(cell, weights=frame[f"__fc_m{q}{j}"].to_numpy(dtype=np.float64),
                                      minlength=n_cells)
                    missing = f"__fc_x{q}{j}"
                    mis = (np.bincount(cell, weights=frame[missing].to_numpy(dtype=np.float64), minlength=n_cells)
                           if missing in frame else 0.0)
                    return mem, total - mem - mis
                if as_sparse:
                    rows_m.append(lambda f=identity_rows: f()[0])
                    rows_b.append(lambda f=identity_rows: f()[1])
                else:
                    mem, back = identity_rows()
                    rows_m.append(mem[None])
                    rows_b.append(back[None])
            if as_sparse:
                member[q], background[q] = (_csr_of_rows(rows_m, n_cells, dtype),
                                            _csr_of_rows(rows_b, n_cells, dtype))
            else:
                member[q] = np.vstack(rows_m) if rows_m else np.zeros((0, n_cells))
                background[q] = np.vstack(rows_b) if rows_b else np.zeros((0, n_cells))
            overall[q] = total
        return member, background, overall


def _csr_of_rows(rows: list, n_cells: int, dtype):
    """The CSR matrix of `rows` (functions each computing one dense row of `n_cells`), its arrays allocated once and
    filled row by row: one pass counts each row's nonzero cells, a second computes the row again and copies them,
    so that only the result is held, never every row beside it (near-dense rows of exact AUC levels: the two took
    twice the result's memory)."""
    from scipy import sparse

    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    for i, row in enumerate(rows):
        indptr[i + 1] = indptr[i] + np.count_nonzero(row())
    data = np.empty(int(indptr[-1]), dtype=dtype)
    indices = np.empty(int(indptr[-1]), dtype=np.int32 if n_cells < 2 ** 31 else np.int64)
    for i, row in enumerate(rows):
        values = row()
        where = np.flatnonzero(values)
        indices[indptr[i]:indptr[i + 1]], data[indptr[i]:indptr[i + 1]] = where, values[where]
    return sparse.csr_matrix((data, indices, indptr), shape=(len(rows), n_cells))
