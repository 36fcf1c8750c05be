"""`core.corpus_pack`: a parsed page packed into columns (and pickled, as a
worker sends it) unpacks to the very `ParsedFile`, whatever the page held."""

from __future__ import annotations

import pickle

import pytest

from paperbot.core.corpus import parse_text
from paperbot.core.corpus_pack import pack, unpack
from paperbot.core.text import TitleKeys, title_key

LINE_HEADER = "📚 预训练¶\n\n🧠 NeurIPS2025 · 3 篇论文解读\n\n"
NOISE = "".join(f"Same Title: 摘要{i}\n" for i in range(25))


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(LINE_HEADER + "First Paper: 摘要一\nSecond Paper: 摘要二\n", id="line-layout"),
        pytest.param(
            LINE_HEADER + "First Paper: 摘要一\nno separator here\n%%%: 摘要\nBare Title:\n",
            id="line-layout-with-problems",
        ),
        pytest.param(
            "NeurIPS 2023\n\nA Block Title\n\n第一段。\n\n第二段。\n\n"
            "ICML 2024\n\nAnother Title\n\n摘要。\n\n孤立的段落？\n",
            id="block-layout-two-venues",
        ),
        pytest.param(LINE_HEADER + NOISE, id="noise-warning"),
        pytest.param("just words\n", id="no-venue-problem-only"),
        pytest.param(
            LINE_HEADER + "Ｆｕｌｌｗｉｄｔｈ  Title: 摘要\n", id="key-differs-from-title"
        ),
    ],
)
def test_unpack_gives_back_the_parsed_file(text: str) -> None:
    key = TitleKeys()
    parsed = parse_text(text, "neurips-2025.txt", "预训练", key=key)
    packed = pickle.loads(pickle.dumps(pack(parsed, key), protocol=pickle.HIGHEST_PROTOCOL))
    assert unpack(packed) == parsed
    assert packed.keys == [title_key(e.title) for e in parsed.entries]
