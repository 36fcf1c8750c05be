"""Persistence encoding: a `TopicCorpus` and the vocabulary topics' matches
as named numpy arrays and back (texts packed as UTF-8 byte arrays), so a
restart reads them instead of normalising every paper again."""

from __future__ import annotations

import codecs
import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from itertools import pairwise
from typing import Any

import numpy as np
from numpy.typing import NDArray

# The search index's packing: the same format, sized first and encoded into
# its array (no second full-size copy: ~35 MB of summaries at 100,000 papers).
from paperbot.core.search import pack_texts
from paperbot.core.topics._corpus import FIELDS, FieldIndex, Postings, TopicCorpus
from paperbot.core.topics._feedback import Profile
from paperbot.core.topics._matching import TopicMatches
from paperbot.core.topics._vocabulary import Vocabulary

TOPICS_FORMAT = 6
"""Bumped whenever the arrays, the matching form or the matcher change: a
stored corpus of another format is rebuilt instead of being misread, and its
matches are not reused (2: pseudo-relevance feedback; 3: dead entries, and
the watermark is (corpus version covered, max paper id); 4: each topic's
feedback profile stored with its matches, the corpus-frequency sample by
hash; 5: a profile from the best evidence when clear matches are too few,
a keyword saying an alias is matched within its topic; 6: bound prefixes
joined to their words, `core.text.join_prefixes`)."""

_SEP = "\x00"
_NO_FIELD = FieldIndex((), Postings.empty(), Postings.empty(), ())


def vocabulary_fingerprint(vocabulary: Vocabulary) -> str:
    """Changes whenever the vocabulary's topics do (stored matches of another
    vocabulary are matched again)."""
    return hashlib.sha256(repr(vocabulary.topics).encode("utf-8")).hexdigest()


def corpus_arrays(
    corpus: TopicCorpus,
    matches: Mapping[str, TopicMatches],
    fingerprint: str,
    mark: tuple[int, int] | None = None,
) -> Iterator[tuple[str, NDArray[Any]]]:
    """The corpus and the vocabulary topics' `matches` (by topic key) as named
    arrays, each packed only when asked for (a writer holds one at a time).
    `mark` is the caller's watermark of the papers the corpus holds (the
    corpus version it covers and its max paper id, read back by
    `stored_mark`: a later start brings it up to date instead of building
    it again)."""
    yield "mark", np.asarray(mark if mark is not None else (-1, -1), dtype=np.int64)
    yield "ids", corpus.ids
    yield "dead", corpus.dead
    for name in FIELDS:
        # This generator's references to a field go as it is packed: when
        # the caller holds the corpus no more, its texts and postings are
        # let go field by field, text by text (so a store never holds the
        # summaries both as strings and packed: ~30 MB at 100,000 papers).
        data = corpus.field(name)
        corpus = (
            replace(corpus, title=_NO_FIELD)
            if name == "title"
            else replace(corpus, summary=_NO_FIELD)
        )
        docs = list(data.docs)
        data = replace(data, docs=())
        yield f"{name}_docs", pack_texts(docs, consume=True)
        del docs
        words, chars = data.word_postings, data.char_postings
        del data
        yield f"{name}_word_indptr", words.indptr
        yield f"{name}_word_docs", words.docs
        yield f"{name}_word_keys", pack_texts(list(words))
        del words
        yield f"{name}_char_indptr", chars.indptr
        yield f"{name}_char_docs", chars.docs
        codes = np.asarray([ord(c) for c in chars], dtype=np.uint32)
        del chars
        yield f"{name}_char_keys", codes
    yield "vocabulary", np.frombuffer(fingerprint.encode("ascii"), dtype=np.uint8)
    yield "match_keys", pack_texts(list(matches))
    for part in ("", "near_"):
        lists = [(getattr(m, f"{part}ids"), getattr(m, f"{part}scores")) for m in matches.values()]
        yield f"match_{part}indptr", _indptr([len(ids) for ids, _ in lists])
        yield f"match_{part}ids", _concat([ids for ids, _ in lists], np.int64)
        yield f"match_{part}scores", _concat([scores for _, scores in lists], np.float64)
    yield from _profile_arrays([m.profile for m in matches.values()])


def _profile_arrays(profiles: Sequence[Profile]) -> Iterator[tuple[str, NDArray[Any]]]:
    """Each topic's feedback profile: its terms and weights, and its counts
    (clear matches, papers made over, papers changed since), so appended
    papers are decided against it after a restart too."""
    yield "profile_indptr", _indptr([len(p.weights) for p in profiles])
    yield "profile_terms", pack_texts([term for p in profiles for term, _ in p.weights])
    weights = [weight for p in profiles for _, weight in p.weights]
    yield "profile_weights", np.asarray(weights, dtype=np.float64)
    counts = [(p.clear, p.papers, p.since) for p in profiles]
    yield "profile_counts", np.asarray(counts, dtype=np.int64).reshape(-1)


def corpus_from_arrays(arrays: Mapping[str, NDArray[Any]]) -> TopicCorpus:
    """The inverse of `corpus_arrays` for the corpus; raises KeyError or
    ValueError on a bad set."""
    fields: list[FieldIndex] = []
    for name in FIELDS:
        word_postings = _postings(unpack_texts(arrays[f"{name}_word_keys"]), arrays, f"{name}_word")
        chars = map(chr, arrays[f"{name}_char_keys"].tolist())
        char_postings = _postings(chars, arrays, f"{name}_char")
        docs = unpack_texts(arrays[f"{name}_docs"])
        fields.append(FieldIndex(docs, word_postings, char_postings, tuple(word_postings)))
    corpus = TopicCorpus(
        arrays["ids"].astype(np.int64, copy=False),
        fields[0],
        fields[1],
        arrays["dead"].astype(np.int32, copy=False),
    )
    if not len(corpus.title.docs) == len(corpus.summary.docs) == len(corpus):
        raise ValueError("topic corpus arrays disagree on the number of papers")
    if len(corpus.dead) and int(np.max(corpus.dead)) >= len(corpus):
        raise ValueError("topic corpus dead entries outside the corpus")
    return corpus


def stored_mark(arrays: Mapping[str, NDArray[Any]]) -> tuple[int, int] | None:
    """The watermark `corpus_arrays` stored, or None."""
    values = arrays["mark"].tolist()
    if len(values) != 2 or values[0] < 0:
        return None
    return int(values[0]), int(values[1])


def matches_from_arrays(
    arrays: Mapping[str, NDArray[Any]], fingerprint: str
) -> dict[str, TopicMatches]:
    """The stored matches by topic key; empty when they were made with
    another vocabulary."""
    if bytes(arrays["vocabulary"].tobytes()).decode("ascii") != fingerprint:
        return {}
    keys = unpack_texts(arrays["match_keys"])
    sides: dict[str, list[tuple[NDArray[Any], NDArray[Any]]]] = {}
    for part in ("", "near_"):
        indptr = arrays[f"match_{part}indptr"].tolist()
        ids = arrays[f"match_{part}ids"].astype(np.int64, copy=False)
        scores = arrays[f"match_{part}scores"].astype(np.float64, copy=False)
        if len(indptr) != len(keys) + 1:
            raise ValueError("stored topic matches disagree on the number of topics")
        sides[part] = [(ids[a:b], scores[a:b]) for a, b in pairwise(indptr)]
    profiles = _profiles(arrays, len(keys))
    return {
        key: TopicMatches(ids, scores, near_ids, near_scores, profile)
        for key, (ids, scores), (near_ids, near_scores), profile in zip(
            keys, sides[""], sides["near_"], profiles, strict=True
        )
    }


def _profiles(arrays: Mapping[str, NDArray[Any]], count: int) -> list[Profile]:
    indptr = arrays["profile_indptr"].tolist()
    terms = unpack_texts(arrays["profile_terms"])
    weights = arrays["profile_weights"].astype(np.float64, copy=False).tolist()
    counts = arrays["profile_counts"].astype(np.int64, copy=False).tolist()
    if len(indptr) != count + 1 or len(counts) != 3 * count or len(terms) != len(weights):
        raise ValueError("stored topic profiles disagree on the number of topics")
    pairs = list(zip(terms, weights, strict=True))
    return [
        Profile(tuple(pairs[a:b]), *counts[3 * i : 3 * i + 3])
        for i, (a, b) in enumerate(pairwise(indptr))
    ]


def _postings(keys: Iterable[str], arrays: Mapping[str, NDArray[Any]], prefix: str) -> Postings:
    try:
        return Postings(
            keys,
            arrays[f"{prefix}_indptr"].astype(np.int64, copy=False),
            arrays[f"{prefix}_docs"].astype(np.int32, copy=False),
        )
    except ValueError:
        raise ValueError("topic corpus postings disagree with their keys") from None


def _indptr(lengths: Sequence[int]) -> NDArray[np.int64]:
    indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    return indptr


def _concat(arrays: Sequence[NDArray[Any]], dtype: type[np.generic]) -> NDArray[Any]:
    return np.concatenate(arrays).astype(dtype, copy=False) if arrays else np.zeros(0, dtype)


def unpack_texts(data: NDArray[np.uint8]) -> tuple[str, ...]:
    text, _ = codecs.utf_8_decode(np.ascontiguousarray(data).data, "strict", True)
    if text[:1] != "1":
        return ()
    texts = text[1:].split(_SEP)
    return tuple(texts)


FROZEN_PROFILE = ("profile_indptr", "profile_terms", "profile_weights")
"""The arrays of the profiles' terms and weights: frozen while matches are
extended, so a segment of appended matches leaves them out."""


def segment_matches(
    arrays: Mapping[str, NDArray[Any]], fingerprint: str, previous: Mapping[str, TopicMatches]
) -> dict[str, TopicMatches]:
    """`matches_from_arrays` for matches stored without `FROZEN_PROFILE`:
    each topic's profile terms and weights are those of its `previous`
    matches, its counts the stored ones."""
    if FROZEN_PROFILE[0] in arrays:
        return matches_from_arrays(arrays, fingerprint)
    keys = unpack_texts(arrays["match_keys"])
    if any(key not in previous for key in keys):
        raise ValueError("stored topic matches extend matches that are not stored")
    filled = {**arrays, **dict(_profile_arrays([previous[key].profile for key in keys]))}
    filled["profile_counts"] = arrays["profile_counts"]
    return matches_from_arrays(filled, fingerprint)
