#!/bin/sh
# Starts PostgreSQL (deploy/docker/stores/postgres.Dockerfile). On an empty PGDATA: initdb with
# POSTGRES_USER as the superuser (password POSTGRES_PASSWORD, scram-sha-256 over TCP, trust on the
# local socket), creates POSTGRES_DB, runs every /docker-entrypoint-initdb.d/*.sh once against a
# server listening on the socket only, then serves on every address.
set -eu
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
export POSTGRES_USER POSTGRES_DB
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  mkdir -p "$PGDATA"
  chmod 700 "$PGDATA"
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$POSTGRES_DB" != postgres ]; then
    psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres -c "CREATE DATABASE \"$POSTGRES_DB\"" >/dev/null
  fi
  for script in /docker-entrypoint-initdb.d/*.sh; do
    [ -f "$script" ] || continue
    echo "postgres-entrypoint: running $script"
    sh "$script"
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
