#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: `source .ci/postgres.sh` then
# `pg_throwaway_start` (exports PAPERBOT_TEST_POSTGRES) and `pg_throwaway_stop`.
# Trust auth on 127.0.0.1 only, a private socket folder, fsync off: for tests,
# never for data. Installs Debian's `postgresql` with apt-get when missing.
# As root the server runs as the `postgres` system user (it refuses root).

PG_PORT=${PG_PORT:-54330}
PG_DIR=""
PG_BIN=""

pg_find_bin() {
    # The package's own bin folder (it has createdb); a PATH symlink to initdb
    # is followed there.
    local initdb
    initdb=$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -1)
    [ -n "$initdb" ] || initdb=$(readlink -f "$(command -v initdb 2>/dev/null)" 2>/dev/null)
    [ -n "$initdb" ] && [ -x "$initdb" ] && dirname "$initdb"
}

# as_pg COMMAND...: run as the postgres user when we are root, else as ourselves.
as_pg() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_throwaway_start() {
    PG_BIN=$(pg_find_bin)
    if [ -z "$PG_BIN" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        echo "PostgreSQL is missing: installing it with apt-get"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >/dev/null ||
            { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >/dev/null; }
        PG_BIN=$(pg_find_bin)
    fi
    if [ -z "$PG_BIN" ]; then
        echo "PostgreSQL not found and cannot be installed here: PostgreSQL tests will be skipped"
        return 1
    fi
    PG_DIR=$(mktemp -d)
    [ "$(id -u)" -eq 0 ] && chown postgres "$PG_DIR"
    as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U paperbot -A trust -E UTF8 \
        --locale=C.UTF-8 --no-sync >/dev/null &&
        as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
            -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR -c fsync=off -c max_connections=200" \
            start >/dev/null &&
        as_pg "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U paperbot paperbot || {
        echo "!! could not start a throwaway PostgreSQL (log: $PG_DIR/log)"
        return 1
    }
    export PAPERBOT_TEST_POSTGRES="postgresql://paperbot@127.0.0.1:$PG_PORT/paperbot"
    echo "throwaway PostgreSQL at $PAPERBOT_TEST_POSTGRES"
}

pg_throwaway_stop() {
    [ -n "$PG_DIR" ] || return 0
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast stop >/dev/null 2>&1
    rm -rf "$PG_DIR"
    PG_DIR=""
}
