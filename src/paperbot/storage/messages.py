"""A rendered post as stored: `MessageData` to JSON text and back.

Digest posts (server and personal) keep their rendered message so a retry
after a crash re-sends exactly what was claimed.
"""

from __future__ import annotations

import json

from paperbot.core.render import EmbedData, EmbedField, MessageData


def encode_message(message: MessageData) -> str:
    return json.dumps(
        {
            "content": message.content,
            "mention_user_ids": list(message.mention_user_ids),
            "paper_ids": list(message.paper_ids),
            "embeds": [
                {
                    "title": e.title,
                    "description": e.description,
                    "url": e.url,
                    "fields": [[f.name, f.value, f.inline] for f in e.fields],
                    "footer": e.footer,
                    "color": e.color,
                }
                for e in message.embeds
            ],
        },
        ensure_ascii=False,
    )


def decode_message(text: str) -> MessageData:
    data = json.loads(text)
    return MessageData(
        content=data["content"],
        mention_user_ids=tuple(int(u) for u in data["mention_user_ids"]),
        # Posts stored before reader buttons existed have none.
        paper_ids=tuple(int(p) for p in data.get("paper_ids", ())),
        embeds=tuple(
            EmbedData(
                title=e["title"],
                description=e["description"],
                url=e["url"],
                fields=tuple(EmbedField(n, v, bool(i)) for n, v, i in e["fields"]),
                footer=e["footer"],
                color=e["color"],
            )
            for e in data["embeds"]
        ),
    )
