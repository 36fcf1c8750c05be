"""Discord's message limits, in one place, for the pure renderers.

Numbers from Discord's documentation (Embed Limits, Message, Autocomplete).
"""

from __future__ import annotations

CONTENT_MAX = 2000
EMBEDS_PER_MESSAGE = 10
EMBED_TOTAL_MAX = 6000
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
AUTOCOMPLETE_CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
CHOICE_VALUE_MAX = 100
#: A button's label (Message Components: Button).
BUTTON_LABEL_MAX = 80
#: Longest URL Discord accepts in an embed (`url`, image and thumbnail URLs).
URL_MAX = 2048
