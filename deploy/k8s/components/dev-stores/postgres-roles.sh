#!/bin/sh
# Runs at the first start of the dev Postgres (docker-entrypoint-initdb.d, empty volume only):
# creates every Inkwell service's roles with the development password INKWELL_ROLE_PASSWORD
# (Secret postgres-credentials), the one in inkwell-stores' URLs. On an older volume run it by
# hand: kubectl -n inkwell-dev exec statefulset/postgres -- sh /docker-entrypoint-initdb.d/10-inkwell-roles.sh
set -eu
set --
for schema in users stories bookshelves messaging blog webhooks; do
  set -- "$@" -v "${schema}_password=${INKWELL_ROLE_PASSWORD}" -v "${schema}_migrator_password=${INKWELL_ROLE_PASSWORD}"
done
psql -v ON_ERROR_STOP=1 --username "${POSTGRES_USER}" --dbname "${POSTGRES_DB}" "$@" -f /docker-entrypoint-initdb.d/postgres-roles.psql
