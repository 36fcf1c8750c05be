"""Links the bot puts on papers."""

from __future__ import annotations

from urllib.parse import urlencode


def arxiv_search_url(title: str) -> str:
    """An arXiv title search for a paper (the corpus carries no arXiv ids)."""
    query = urlencode({"query": title, "searchtype": "title"})
    return f"https://arxiv.org/search/?{query}"
