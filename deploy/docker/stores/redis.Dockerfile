# Redis 7 from Debian's packages on the locally built Debian base (tools/images), for the container
# system (`npm run containers`) and the testcontainers stack. Arguments are redis-server's.
ARG BASE_IMAGE=inkwell-local/debian:bookworm
FROM ${BASE_IMAGE}
# uid/gid 999, as the dev-stores StatefulSet runs it (runAsUser: 999).
RUN groupadd --system --gid 999 redis \
 && useradd --system --uid 999 --gid 999 --home-dir /data --shell /usr/sbin/nologin redis \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server redis-tools \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log \
 && mkdir -p /data && chown 999:999 /data
WORKDIR /data
USER 999:999
EXPOSE 6379
ENTRYPOINT ["redis-server", "--bind", "0.0.0.0", "-::*", "--protected-mode", "no", "--dir", "/data"]
CMD ["--save", "", "--appendonly", "no"]
