"""paperbot: daily paper digests and bilingual search for Discord."""

__version__ = "0.1.0"
