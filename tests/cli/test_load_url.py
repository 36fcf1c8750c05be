"""`paperbot load URL`: a page from a local HTTP server, then the server gone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperbot.cli import main
from tests.support.page_server import PageServer, Served, digest_page, served_in_thread


@pytest.fixture(autouse=True)
def isolated_env(cli_env: Path) -> Path:
    return cli_env


def test_load_url_then_list_then_server_gone(capsys: pytest.CaptureFixture[str]) -> None:
    server = PageServer()
    server.pages["/icml2026.txt"] = Served(digest_page(["Quasar Lattice Tokenizers"]))
    with served_in_thread(server):
        url = server.url("/icml2026.txt")
        assert main(["load", url]) == 0
        out = capsys.readouterr().out
        assert "1 new" in out
        assert "search index built" in out
    assert main(["list", "--json", "--venue", "ICML", "--year", "2026"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [p["title"] for p in listed] == ["Quasar Lattice Tokenizers"]
    # The server is gone: one line, exit 1, and the papers stay.
    assert main(["load", url]) == 1
    captured = capsys.readouterr()
    assert f"cannot fetch {url}" in captured.err
    assert "Traceback" not in captured.err
    assert main(["list", "--json", "--venue", "ICML", "--year", "2026"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 1
