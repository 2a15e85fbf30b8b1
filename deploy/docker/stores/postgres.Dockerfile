# PostgreSQL 15 from Debian's packages on the locally built Debian base (tools/images), for the
# container system (`npm run containers`) and the testcontainers stack. Its start mirrors the
# official image's contract that deploy/k8s/components/dev-stores relies on: POSTGRES_USER,
# POSTGRES_PASSWORD and POSTGRES_DB, PGDATA, and the scripts of /docker-entrypoint-initdb.d run
# once on an empty data folder (there: postgres-roles.sh, which creates every service's roles).
ARG BASE_IMAGE=inkwell-local/debian:bookworm
FROM ${BASE_IMAGE}
# uid/gid 999, as the dev-stores StatefulSet runs it (runAsUser: 999); no cluster made at install.
# No JIT: llvmjit and the LLVM it loads (about 130 MB) are removed; Postgres then runs every query
# interpreted, as with jit=off (what these short OLTP queries get anyway). The socket folder is
# world-writable (sticky): a tmpfs mounted there (the dev-stores emptyDir) takes this mode.
RUN groupadd --system --gid 999 postgres \
 && useradd --system --uid 999 --gid 999 --home-dir /var/lib/postgresql --shell /bin/sh postgres \
 && mkdir -p /etc/postgresql-common/createcluster.d \
 && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/no-main-cluster.conf \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /usr/lib/postgresql/15/lib/llvmjit* /usr/lib/postgresql/15/lib/bitcode \
      /usr/lib/x86_64-linux-gnu/libLLVM-14.so* /usr/lib/x86_64-linux-gnu/libz3.so* \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql /docker-entrypoint-initdb.d \
 && chown -R 999:999 /var/lib/postgresql /var/run/postgresql \
 && chmod 1777 /var/run/postgresql
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/data/pgdata
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
USER 999:999
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
