"""Links the bot puts on papers."""

from __future__ import annotations

from urllib.parse import urlencode

from paperbot.core.limits import URL_MAX

_ARXIV_SEARCH = "https://arxiv.org/search/?"


def arxiv_search_url(title: str) -> str:
    """An arXiv title search for a paper (the corpus carries no arXiv ids).

    Discord refuses a URL longer than `URL_MAX`, and percent-encoding can make
    one character 12 long (an emoji), so the title is clipped on its encoded
    length: the longest prefix whose URL fits. A prefix still finds the paper.
    """
    url = _search_url(title)
    if len(url) <= URL_MAX:
        return url
    fits, too_long = 0, len(title)
    while too_long - fits > 1:
        middle = (fits + too_long) // 2
        if len(_search_url(title[:middle])) <= URL_MAX:
            fits = middle
        else:
            too_long = middle
    return _search_url(title[:fits].rstrip())


def _search_url(title: str) -> str:
    return _ARXIV_SEARCH + urlencode({"query": title, "searchtype": "title"})
