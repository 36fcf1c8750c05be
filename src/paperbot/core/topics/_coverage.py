"""How the vocabulary covers a corpus: per topic, how many papers match."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from paperbot.core.topics._corpus import TopicCorpus
from paperbot.core.topics._matching import TopicMatches, match_topic
from paperbot.core.topics._vocabulary import Topic, Vocabulary


@dataclass(frozen=True, slots=True)
class Coverage:
    """How the vocabulary covers a corpus."""

    papers: int
    counts: tuple[tuple[Topic, int], ...]
    unmatched_ids: tuple[int, ...]

    @property
    def covered_share(self) -> float:
        return 1.0 - len(self.unmatched_ids) / self.papers if self.papers else 0.0


def coverage(
    vocabulary: Vocabulary,
    corpus: TopicCorpus,
    matches: Mapping[str, TopicMatches] | None = None,
) -> Coverage:
    """Per topic, how many papers match; and which papers match no topic.
    A topic's `matches` (by key) when given, so the counts are those the
    digest uses (extended by appended papers: `_append.extend_matches`)."""
    given = matches or {}
    protected = vocabulary.term_words()
    matched = np.zeros(len(corpus), dtype=bool)
    counts: list[tuple[Topic, int]] = []
    position = {int(pid): i for i, pid in enumerate(corpus.ids.tolist())}
    for topic in vocabulary.topics:
        found = given.get(topic.key)
        if found is None:
            found = match_topic(topic, corpus, protected, vocabulary)
        counts.append((topic, len(found)))
        matched[[position[int(pid)] for pid in found.ids.tolist()]] = True
    matched[corpus.dead] = True  # dead entries are no papers
    unmatched = tuple(int(pid) for pid in corpus.ids[~matched].tolist())
    return Coverage(len(corpus) - len(corpus.dead), tuple(counts), unmatched)
