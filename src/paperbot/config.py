"""Settings: a TOML file, overridden by environment variables.

The file is `$PAPERBOT_CONFIG`, else `config/paperbot.toml` in the working
directory (a checkout), else `paperbot.toml` in the user's config folder
(where `paperbot init` writes it); without one, built-in defaults.

Every problem becomes one `ConfigError` naming the key, so the CLI can print
a single clear line and exit 2 instead of a traceback.
"""

from __future__ import annotations

import logging
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import platformdirs
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    StrictBool,
    ValidationError,
    model_validator,
)

from paperbot.core.shards import ShardSet, parse_shard_ids

log = logging.getLogger(__name__)

APP_NAME = "paperbot"
DEFAULT_CONFIG = Path("config/paperbot.toml")
CONFIG_FILE_NAME = "paperbot.toml"
DATABASE_FILE_NAME = "paperbot.sqlite3"
BUNDLED_DATA = Path(__file__).parent / "data"
BUNDLED_CORPUS = BUNDLED_DATA / "corpus"
BUNDLED_TOPICS = BUNDLED_DATA / "topics.toml"
EXAMPLE_CONFIG = BUNDLED_DATA / "paperbot.example.toml"

ENV_TOKEN = "DISCORD_TOKEN"
ENV_DB = "PAPERBOT_DB"
ENV_CORPUS = "PAPERBOT_CORPUS"
ENV_CONFIG = "PAPERBOT_CONFIG"
ENV_SYNC_GUILD = "PAPERBOT_SYNC_GUILD"
ENV_LOG_LEVEL = "PAPERBOT_LOG_LEVEL"
ENV_SHARDS = "PAPERBOT_SHARDS"
ENV_SHARD_COUNT = "PAPERBOT_SHARD_COUNT"


class ConfigError(Exception):
    """A setting is missing, unknown or invalid; `str()` is one clear line."""


def _existing_dir(path: Path) -> Path:
    if path.is_file():
        raise ValueError(f"{path} is a file, not a folder")
    if not path.is_dir():
        raise ValueError(f"folder {path} does not exist")
    return path


def _http_url(url: str) -> str:
    if not url.startswith(("http://", "https://")) or len(url) < 11:
        raise ValueError(f"{url!r} is not an http(s) URL")
    return url


def _existing_file(path: Path) -> Path:
    if not path.is_file():
        raise ValueError(f"file {path} does not exist")
    return path


def _timezone(name: str) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(
            f"unknown timezone {name!r} (use an IANA name such as Asia/Shanghai)"
        ) from exc
    return name


def in_checkout(folder: Path) -> bool:
    """`folder` is the root of a paperbot source checkout."""
    return (folder / "pyproject.toml").is_file() and (folder / "src" / "paperbot").is_dir()


def user_config_file() -> Path:
    """Where `paperbot init` writes, and where the file is looked for last."""
    return platformdirs.user_config_path(APP_NAME) / CONFIG_FILE_NAME


def default_database() -> Path:
    """`var/` of a checkout run from its root (developers keep their data
    beside the code), else the user's data folder: never `./var` of
    whatever folder an installed `paperbot` happens to run in."""
    if in_checkout(Path.cwd()):
        return Path("var") / DATABASE_FILE_NAME
    return platformdirs.user_data_path(APP_NAME) / DATABASE_FILE_NAME


ExistingDir = Annotated[Path, AfterValidator(_existing_dir)]
ExistingFile = Annotated[Path, AfterValidator(_existing_file)]
TimezoneName = Annotated[str, AfterValidator(_timezone)]
# TOML has real types: `page_size = true` or `"7"` is a mistake, not a 1 or a 7.
# Floats must be finite (`inf`/`nan` parse as TOML floats) and bounded.
StrictInt = Annotated[int, Field(strict=True)]
FiniteFloat = Annotated[float, Field(strict=True, allow_inf_nan=False)]
#: Discord ids (snowflakes) are unsigned 64-bit, but the top bit stays 0 until
#: 2084 and SQLite stores signed 64-bit integers.
SNOWFLAKE_MAX = 2**63 - 1


class _Section(BaseModel):
    # Unknown keys are typos; say so instead of silently ignoring them.
    model_config = ConfigDict(extra="forbid", frozen=True)


def _postgres_url(url: str) -> str:
    if not url.startswith(("postgresql://", "postgres://")):
        raise ValueError("must be a postgresql://user@host:port/database URL")
    return url


class DatabaseSettings(_Section):
    # The SQLite file (the default backend); the search index is stored in it too.
    path: Path = Field(default_factory=default_database)
    # A PostgreSQL URL instead: several processes share that database.
    url: Annotated[str, AfterValidator(_postgres_url)] | None = None
    # How long a write waits (retrying with backoff) for a lock another process holds.
    lock_wait_seconds: FiniteFloat = Field(default=30.0, ge=0, le=600)

    @property
    def target(self) -> str | Path:
        """What `storage.open_database` opens: the URL when set, else the file."""
        return self.url if self.url is not None else self.path


class CorpusSettings(_Section):
    path: ExistingDir = BUNDLED_CORPUS
    default_area: str = Field(default="预训练", min_length=1)
    # Limits that keep one hostile or broken page from taking the bot down
    # (the real pages are under 100 KB, titles under 300 and summaries under
    # 1,000 characters, at most a few hundred papers a page).
    max_file_mb: FiniteFloat = Field(default=5.0, gt=0, le=1024)
    max_title_chars: StrictInt = Field(default=500, ge=20, le=10_000)
    max_summary_chars: StrictInt = Field(default=5000, ge=100, le=100_000)
    max_entries_per_file: StrictInt = Field(default=5000, ge=1, le=1_000_000)
    # How often the running bot looks for new or changed pages (0: never).
    poll_seconds: FiniteFloat = Field(default=60.0, ge=0, le=86_400)
    # Digest pages (or RSS/Atom feeds linking to pages) fetched by URL.
    sources: list[Annotated[str, AfterValidator(_http_url)]] = Field(default_factory=list)
    sources_poll_seconds: FiniteFloat = Field(default=3600.0, ge=1, le=7 * 86_400)
    source_timeout_seconds: FiniteFloat = Field(default=20.0, gt=0, le=600)


class TopicsSettings(_Section):
    path: ExistingFile = BUNDLED_TOPICS


class SearchSettings(_Section):
    page_size: StrictInt = Field(default=5, ge=1, le=10)
    max_query_length: StrictInt = Field(default=300, ge=10, le=2000)
    cooldown_uses: StrictInt = Field(default=5, ge=1, le=1000)
    cooldown_seconds: FiniteFloat = Field(default=10.0, gt=0, le=86_400)
    # Order a reader's results by their 👍/👎 profile too (only once they voted).
    personal_order: StrictBool = True


class DigestSettings(_Section):
    default_timezone: TimezoneName = "UTC"
    default_count: StrictInt = Field(default=5, ge=1, le=10)


class FeedbackSettings(_Section):
    # Servers whose 👍/👎 personalization each process keeps in memory, and
    # the memory they may hold together: past either, the least recently
    # picked is dropped (and built again when next asked). 1,000 readers x 50
    # votes over 100,000 papers hold about 60 MB, a server with a few votes 10.
    kept_servers: StrictInt = Field(default=64, ge=1, le=100_000)
    kept_mb: FiniteFloat = Field(default=512.0, gt=0, le=1_048_576)

    @property
    def kept_bytes(self) -> int:
        return int(self.kept_mb * 2**20)


class BotSettings(_Section):
    token: SecretStr | None = None
    sync_guild: StrictInt | None = Field(default=None, gt=0, le=SNOWFLAKE_MAX)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    shutdown_grace_seconds: FiniteFloat = Field(default=5.0, ge=0, le=9)
    # Several processes (README, "Scaling out"): this one runs `shards` out of
    # `shard_count`; unset, one process runs every shard Discord asks for.
    shards: list[Annotated[int, Field(strict=True, ge=0)]] | None = None
    shard_count: StrictInt | None = Field(default=None, ge=1, le=100_000)

    @model_validator(mode="after")
    def _shards_fit(self) -> BotSettings:
        if (self.shards is None) != (self.shard_count is None):
            raise ValueError("set both bot.shards and bot.shard_count, or neither")
        if self.shards is not None and self.shard_count is not None:
            ShardSet(tuple(self.shards), self.shard_count)  # raises with the reason
        return self

    @property
    def shard_set(self) -> ShardSet:
        """The shards this process owns (all of one shard when unset)."""
        if self.shards is None or self.shard_count is None:
            return ShardSet()
        return ShardSet(tuple(self.shards), self.shard_count)


class Settings(_Section):
    config_path: Path | None = None
    # A factory: the database default depends on the working directory.
    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    corpus: CorpusSettings = CorpusSettings()
    topics: TopicsSettings = TopicsSettings()
    search: SearchSettings = SearchSettings()
    digest: DigestSettings = DigestSettings()
    feedback: FeedbackSettings = FeedbackSettings()
    bot: BotSettings = BotSettings()


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Read the TOML file (if any), apply the environment, validate."""
    env = os.environ if env is None else env
    path, explicit = _config_path(env)
    raw = _read_toml(path, explicit=explicit)
    if "token" in raw.get("bot", {}):
        raise ConfigError(f"bot.token: never put the token in {path}; set {ENV_TOKEN} instead")
    _resolve_paths(raw, base=path.parent if path.exists() else Path.cwd())
    _apply_env(raw, env)
    raw["config_path"] = path if path.exists() else None
    try:
        return Settings.model_validate(raw)
    except ValidationError as exc:
        origin = path if path.exists() else None
        raise ConfigError(_describe(exc, origin, env)) from None


def _config_path(env: Mapping[str, str]) -> tuple[Path, bool]:
    if env.get(ENV_CONFIG):
        return Path(env[ENV_CONFIG]), True
    if DEFAULT_CONFIG.exists():
        return DEFAULT_CONFIG, False
    return user_config_file(), False


def _read_toml(path: Path, *, explicit: bool) -> dict[str, Any]:
    if not path.exists():
        if explicit:
            raise ConfigError(f"{ENV_CONFIG}: config file {path} does not exist")
        return {}
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None


def _resolve_paths(raw: dict[str, Any], base: Path) -> None:
    """Relative paths in the file are relative to the file's folder."""
    for section in ("database", "corpus", "topics"):
        values = raw.get(section)
        if isinstance(values, dict) and isinstance(values.get("path"), str):
            values["path"] = str(base / values["path"]) if values["path"] else None
            if values["path"] is None:
                del values["path"]


def _apply_env(raw: dict[str, Any], env: Mapping[str, str]) -> None:
    overrides = {
        ENV_DB: ("database", "path"),
        ENV_CORPUS: ("corpus", "path"),
        ENV_SYNC_GUILD: ("bot", "sync_guild"),
        ENV_LOG_LEVEL: ("bot", "log_level"),
        ENV_TOKEN: ("bot", "token"),
    }
    for name, (section, key) in overrides.items():
        value = env.get(name, "").strip()
        if value:
            raw.setdefault(section, {})[key] = value
    _database_url(raw, env.get(ENV_DB, "").strip())
    _shards_from_env(raw, env)
    # Environment values are text; the guild id is the one number among them.
    guild = raw.get("bot", {}).get("sync_guild")
    from_env = bool(env.get(ENV_SYNC_GUILD, "").strip())
    if from_env and isinstance(guild, str) and guild.isascii() and guild.isdigit():
        raw["bot"]["sync_guild"] = int(guild)


def _shards_from_env(raw: dict[str, Any], env: Mapping[str, str]) -> None:
    """PAPERBOT_SHARDS=0,1 (or 0-3) and PAPERBOT_SHARD_COUNT=4."""
    bot = raw.setdefault("bot", {})
    if env.get(ENV_SHARDS, "").strip():
        try:
            bot["shards"] = list(parse_shard_ids(env[ENV_SHARDS]))
        except ValueError as exc:
            raise ConfigError(f"bot.shards: {exc} (from {ENV_SHARDS})") from None
    count = env.get(ENV_SHARD_COUNT, "").strip()
    if count:
        if not count.isdigit():
            raise ConfigError(
                f"bot.shard_count: {count!r} is not a number (from {ENV_SHARD_COUNT})"
            )
        bot["shard_count"] = int(count)


def _database_url(raw: dict[str, Any], value: str) -> None:
    """PAPERBOT_DB is a file path, `sqlite:///path`, or a PostgreSQL URL."""
    database = raw.get("database", {})
    if value.startswith(("postgresql://", "postgres://")):
        database.pop("path", None)
        database["url"] = value
    elif value:
        database.pop("url", None)  # the environment's file wins over the file's URL
        if value.startswith("sqlite:///"):
            database["path"] = value.removeprefix("sqlite:///")


_ENV_FOR_KEY = {
    "database.url": ENV_DB,
    "database.path": ENV_DB,
    "corpus.path": ENV_CORPUS,
    "bot.sync_guild": ENV_SYNC_GUILD,
    "bot.log_level": ENV_LOG_LEVEL,
    "bot.shards": ENV_SHARDS,
    "bot.shard_count": ENV_SHARD_COUNT,
}


def _describe(exc: ValidationError, path: Path | None, env: Mapping[str, str]) -> str:
    """The first validation error as one line: key, problem, where it came from.

    The origin is the environment variable when it is set (it overrides the
    file), else the file, else the built-in default.
    """
    error = exc.errors()[0]
    key = ".".join(str(part) for part in error["loc"])
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        message = "unknown setting"
    variable = _ENV_FOR_KEY.get(key)
    if variable and env.get(variable, "").strip():
        where = variable
    else:
        where = str(path) if path is not None else "the built-in default"
    return f"{key}: {message} (from {where})"


def token(settings: Settings) -> str | None:
    """The Discord token, or None when it is not set."""
    secret = settings.bot.token
    return secret.get_secret_value() if secret is not None else None
